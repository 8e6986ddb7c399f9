// Umbrella header for the CWebP system library target: libwebp's decoder and encoder, its
// demuxer, which reads animated WebP, and its muxer's animation encoder, which writes it.
#pragma once
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>
