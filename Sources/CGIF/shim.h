// Umbrella header for the CGIF system library target (giflib 5).
#pragma once
#include <gif_lib.h>
