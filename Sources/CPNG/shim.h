// Umbrella header for the CPNG system library target.
#pragma once
#include <png.h>
