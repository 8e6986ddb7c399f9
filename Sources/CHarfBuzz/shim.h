// Umbrella header for the CHarfBuzz system library target.
#pragma once
#include <hb.h>
#include <hb-ft.h>
#include <hb-ot.h>
