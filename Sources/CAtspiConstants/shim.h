// AT-SPI2's role, state and coordinate numbers, from at-spi2-core's standalone header: the
// numbers on the wire. Header only: nothing links libatspi or GLib.
#pragma once
#include <at-spi-2.0/atspi/atspi-constants.h>
