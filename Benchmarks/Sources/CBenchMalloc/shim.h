#pragma once
// glibc's allocator statistics (mallinfo2), for M6.
#include <malloc.h>
