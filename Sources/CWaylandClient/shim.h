// Umbrella header for the CWaylandClient system library target.
#pragma once
#include <wayland-client-core.h>
#include <wayland-util.h>
