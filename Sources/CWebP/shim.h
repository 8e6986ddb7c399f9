// Umbrella header for the CWebP system library target: libwebp's decoder and its demuxer, which
// reads animated WebP.
#pragma once
#include <webp/decode.h>
#include <webp/demux.h>
