// libjpeg-turbo behind a C interface that reports errors by return value.
//
// libjpeg reports a fatal error by calling error_exit, which must not return; the only way out is
// longjmp, and a longjmp over Swift frames skips their cleanup (undefined behaviour). So every
// libjpeg call is made from CStrataJPEG.c, between its setjmp and the end of the call, and Swift
// sees only plain C types. The one callback into Swift (`allocate`) runs between libjpeg calls,
// never under one, so no longjmp can cross it.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// What a call returns.
enum StrataJPEGResult {
    STRATA_JPEG_OK = 0,
    /// libjpeg rejected the data (not a JPEG, truncated, bad markers or Huffman codes, too many scans).
    STRATA_JPEG_CORRUPT = 1,
    /// The header claims more pixels, or more working memory, than the caller allows.
    STRATA_JPEG_TOO_LARGE = 2,
    /// The allocate callback returned NULL.
    STRATA_JPEG_NO_MEMORY = 3,
};

/// A JPEG's header, and why a call failed.
typedef struct StrataJPEGInfo {
    /// The stored size, before the EXIF orientation.
    int width, height;
    /// 1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK.
    int components;
    /// Whether the file is progressive.
    int progressive;
    /// The EXIF orientation, 1 to 8 (1, upright, when there is none or it is not valid).
    int orientation;
    /// The output size of the last decode.
    int output_width, output_height;
    /// libjpeg's message for the failure (or the last warning), NUL-terminated.
    char message[200];
} StrataJPEGInfo;

/// Reads the header of `size` bytes at `data`, and the EXIF orientation, into `info`.
int strata_jpeg_read_info(const uint8_t *data, size_t size, StrataJPEGInfo *info);

/// Where a decode writes: a buffer of `height` rows of `width` native-endian ARGB32 pixels (byte
/// order B, G, R, A on little-endian machines), rows `*stride` bytes apart; NULL to give up.
typedef uint8_t *(*StrataJPEGAllocate)(void *context, int width, int height, size_t *stride);

/// Decodes the JPEG at `data` into opaque ARGB32 pixels from `allocate`, scaled by libjpeg's DCT
/// scaling to the smallest size at least `min_width`×`min_height` (stored orientation; 0×0 for
/// full size), in eighths: a 4000×3000 photo for a 300×200 target decodes at 500×375 without
/// ever holding 4000×3000 pixels. A progressive file decoded at an eighth reads only its first scans,
/// those with the coefficients an eighth needs (see read_first_scans in CStrataJPEG.c): the rest,
/// and damage in them, are not read.
///
/// Refused as STRATA_JPEG_TOO_LARGE before anything is allocated: a side over `max_side`, or more
/// than `max_pixels` pixels; libjpeg's own working memory (a progressive file's coefficients) is
/// held to `max_memory` bytes. A progressive file of over 500 scans, and data that ends early, are
/// STRATA_JPEG_CORRUPT.
int strata_jpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height,
                       long max_side, long max_pixels, long max_memory,
                       StrataJPEGAllocate allocate, void *context, StrataJPEGInfo *info);

/// Encodes `height` rows of `width` opaque native-endian ARGB32 pixels (`stride` bytes apart; the
/// alpha byte is ignored) as a JPEG of `quality` (1–100), with 2×2 chroma subsampling, optimised
/// Huffman tables, and progressive scans when `progressive` is non-zero. On STRATA_JPEG_OK,
/// `*output` is a malloc'ed buffer of `*output_size` bytes for the caller to free. Failures are
/// STRATA_JPEG_NO_MEMORY, or STRATA_JPEG_CORRUPT with libjpeg's message in `message` (200 bytes).
int strata_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int quality, int progressive,
                       uint8_t **output, size_t *output_size, char *message);
