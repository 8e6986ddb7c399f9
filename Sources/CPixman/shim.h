// Umbrella header for the CPixman system library target.
#pragma once
#include <pixman.h>
