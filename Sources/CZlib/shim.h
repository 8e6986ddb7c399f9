// Umbrella header for the CZlib system library target: zlib, for the CRC-32 of the PNG chunks
// APNG decoding rebuilds.
#pragma once
#include <zlib.h>
