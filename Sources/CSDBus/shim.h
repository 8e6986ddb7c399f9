// Umbrella header for the CSDBus system library target: sd-bus, systemd's D-Bus client library.
#pragma once
#include <systemd/sd-bus.h>
