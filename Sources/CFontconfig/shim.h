// Umbrella header for the CFontconfig system library target.
#pragma once
#include <fontconfig/fontconfig.h>
