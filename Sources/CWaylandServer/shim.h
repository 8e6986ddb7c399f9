// Umbrella header for the CWaylandServer system library target.
#pragma once
#include <wayland-server-core.h>
