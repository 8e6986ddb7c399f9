// Umbrella header for the CWaylandCursor system library target: cursor themes (Xcursor) loaded
// into wl_shm buffers. It declares wl_shm and wl_buffer as opaque structs only.
#pragma once
#include <wayland-cursor.h>
