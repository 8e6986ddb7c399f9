#include "CStrataJPEG.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <libexif/exif-data.h>

// Browsers and libjpeg-turbo's TurboJPEG API refuse progressive files of more scans than this: each
// scan re-reads the whole coefficient buffer, so a small file of many tiny scans is a way to burn
// minutes of CPU.
enum { MAX_SCANS = 500 };

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    StrataJPEGInfo *info;
    int result;
} ErrorState;

static void fail(j_common_ptr cinfo) {
    ErrorState *state = (ErrorState *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, state->info->message);
    if (state->result == STRATA_JPEG_OK) {
        // A header beyond libjpeg's own size limit, libjpeg's out-of-memory, or a virtual array
        // needing backing store beyond max_memory_to_use: the file asks for too much.
        int code = cinfo->err->msg_code;
        int too_large = code == JERR_IMAGE_TOO_BIG || code == JERR_WIDTH_OVERFLOW || code == JERR_OUT_OF_MEMORY
            || code == JERR_NO_BACKING_STORE;
        state->result = too_large ? STRATA_JPEG_TOO_LARGE : STRATA_JPEG_CORRUPT;
    }
    longjmp(state->jump, 1);
}

// Warnings are kept silent (libjpeg would print them to stderr) except one: data that ends early,
// which libjpeg pads with grey and calls a warning, is a truncated file, and fails.
static void warn(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    ErrorState *state = (ErrorState *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, state->info->message);
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
        state->result = STRATA_JPEG_CORRUPT;
        longjmp(state->jump, 1);
    }
}

static void count_scans(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (d->progressive_mode && d->input_scan_number > MAX_SCANS) {
            ErrorState *state = (ErrorState *)cinfo->err;
            snprintf(state->info->message, sizeof state->info->message, "progressive JPEG has more than %d scans", MAX_SCANS);
            state->result = STRATA_JPEG_CORRUPT;
            longjmp(state->jump, 1);
        }
    }
}

// The EXIF orientation in an APP1 marker, through libexif; 1 when there is none.
static int orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6 || memcmp(marker->data, "Exif\0\0", 6) != 0) continue;
        ExifData *exif = exif_data_new();
        if (!exif) return 1;
        // Only IFD 0's orientation is wanted: skip interpreting maker notes.
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
        exif_data_set_option(exif, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
        exif_data_load_data(exif, marker->data, marker->data_length);
        int value = 1;
        ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
        if (entry && entry->format == EXIF_FORMAT_SHORT && entry->components >= 1 && entry->size >= 2) {
            ExifShort found = exif_get_short(entry->data, exif_data_get_byte_order(exif));
            if (found >= 1 && found <= 8) value = found;
        }
        exif_data_unref(exif);
        return value;
    }
    return 1;
}

static void fill_info(j_decompress_ptr cinfo, StrataJPEGInfo *info) {
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    info->components = cinfo->num_components;
    info->progressive = cinfo->progressive_mode ? 1 : 0;
    info->orientation = orientation(cinfo);
}

static void begin(j_decompress_ptr cinfo, ErrorState *state, struct jpeg_progress_mgr *progress,
                  const uint8_t *data, size_t size) {
    cinfo->err = jpeg_std_error(&state->manager);
    state->manager.error_exit = fail;
    state->manager.emit_message = warn;
    jpeg_create_decompress(cinfo);
    progress->progress_monitor = count_scans;
    cinfo->progress = progress;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
}

int strata_jpeg_read_info(const uint8_t *data, size_t size, StrataJPEGInfo *info) {
    memset(info, 0, sizeof *info);
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    ErrorState state = { .info = info, .result = STRATA_JPEG_OK };
    if (setjmp(state.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return state.result;
    }
    begin(&cinfo, &state, &progress, data, size);
    jpeg_read_header(&cinfo, TRUE);
    fill_info(&cinfo, info);
    jpeg_destroy_decompress(&cinfo);
    return STRATA_JPEG_OK;
}

// A row of CMYK as opaque ARGB32. Adobe's applications write CMYK inverted (0 is full ink), and
// say so with their APP14 marker; others write it plain.
static void cmyk_to_argb(const JSAMPLE *cmyk, uint32_t *argb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        unsigned r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255;
        argb[x] = 0xFF000000u | r << 16 | g << 8 | b;
    }
}

// The coefficients an eighth needs of each component, in zigzag order, as a bit mask: libjpeg
// gives a component that is not subsampled a 1×1 inverse DCT (its DC alone), and scales a
// subsampled one (4:2:0 chroma) with a 2×2 one, which reads coefficients 0, 1, 2 and 4 in zigzag
// order. Zero when a component needs more (a larger DCT), and reading only some scans would not do.
static unsigned needed_coefficients(const jpeg_component_info *component) {
    switch (component->DCT_scaled_size) {
    case 1: return 1u << 0;
    case 2: return 1u << 0 | 1u << 1 | 1u << 2 | 1u << 4;
    default: return 0;
    }
}

static int reads_first_scans_only(j_decompress_ptr cinfo) {
    if (!cinfo->progressive_mode || cinfo->num_components > MAX_COMPONENTS) return 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        if (!needed_coefficients(&cinfo->comp_info[c])) return 0;
    }
    return 1;
}

// The coefficients the scan starting now makes final for its components (its point transform Al
// is 0: no bit of them is left for a later scan), added to `pending`.
static void note_scan(j_decompress_ptr cinfo, unsigned *pending) {
    if (cinfo->Al > 0) return;
    unsigned coefficients = 0;
    for (int k = cinfo->Ss; k <= cinfo->Se && k < 5; k++) coefficients |= 1u << k;
    for (int i = 0; i < cinfo->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        int index = cinfo->cur_comp_info[i]->component_index;
        if (index >= 0 && index < MAX_COMPONENTS) pending[index] |= coefficients;
    }
}

// Reads a progressive file's scans until every component has the final values of the coefficients
// its scaled inverse DCT reads (needed_coefficients), then starts output at the last scan read:
// the pixels are exactly those of reading every scan. libjpeg's usual script makes them final in
// its seventh to ninth scans and leaves for last the luma's AC refinement, the largest scan, which
// an eighth never reads: a 4000×3000 photo's thumbnail takes two thirds of the time. (Showing the
// first scans alone, with every value a bit short, took a third, but was 1.5 levels off on
// average: not the same picture.) The end of the file ends the reading too.
static void read_first_scans(j_decompress_ptr cinfo) {
    unsigned complete[MAX_COMPONENTS] = { 0 }, pending[MAX_COMPONENTS] = { 0 };
    // jpeg_read_header stopped at the first scan's header: that scan is the one starting now.
    note_scan(cinfo, pending);
    for (;;) {
        int status = jpeg_consume_input(cinfo);
        if (status == JPEG_REACHED_EOI || status == JPEG_SUSPENDED) break;
        if (status != JPEG_REACHED_SOS) continue;
        // A new scan's header: the scan before it has been read whole.
        int whole = 1;
        for (int c = 0; c < cinfo->num_components; c++) {
            complete[c] |= pending[c];
            pending[c] = 0;
            unsigned needed = needed_coefficients(&cinfo->comp_info[c]);
            whole &= (complete[c] & needed) == needed;
        }
        if (whole) break;
        note_scan(cinfo, pending);
    }
    // The scan whose header was just read has contributed nothing yet; output stops before it.
    int last = jpeg_input_complete(cinfo) ? cinfo->input_scan_number : cinfo->input_scan_number - 1;
    jpeg_start_output(cinfo, last > 0 ? last : 1);
}

int strata_jpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height,
                       long max_side, long max_pixels, long max_memory,
                       StrataJPEGAllocate allocate, void *context, StrataJPEGInfo *info) {
    memset(info, 0, sizeof *info);
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    ErrorState state = { .info = info, .result = STRATA_JPEG_OK };
    // Volatile: changed after setjmp and read after the longjmp back to it.
    JSAMPLE *volatile cmyk_row = NULL;
    if (setjmp(state.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(cmyk_row);
        return state.result;
    }
    begin(&cinfo, &state, &progress, data, size);
    cinfo.mem->max_memory_to_use = max_memory;
    jpeg_read_header(&cinfo, TRUE);
    fill_info(&cinfo, info);
    if ((long)cinfo.image_width > max_side || (long)cinfo.image_height > max_side
        || (unsigned long long)cinfo.image_width * cinfo.image_height > (unsigned long long)max_pixels) {
        snprintf(info->message, sizeof info->message, "JPEG is %u×%u; the limit is %ld a side and %ld pixels",
                 cinfo.image_width, cinfo.image_height, max_side, max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return STRATA_JPEG_TOO_LARGE;
    }

    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGRA;
#else
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_ARGB;
#endif
    // The smallest eighth that still covers the target on both sides.
    cinfo.scale_denom = 8;
    cinfo.scale_num = 8;
    if (min_width > 0 && min_height > 0) {
        for (unsigned num = 1; num <= 8; num++) {
            cinfo.scale_num = num;
            jpeg_calc_output_dimensions(&cinfo);
            if ((int)cinfo.output_width >= min_width && (int)cinfo.output_height >= min_height) break;
        }
    }
    // At an eighth, each output pixel comes from its block's first coefficients alone, so a
    // progressive file's later scans (most of its bytes, and of the Huffman decoding that is
    // nearly all the time) need not be read: the first ones are read, shown, and the rest skipped.
    int dc_only = cinfo.scale_num == 1 && cinfo.scale_denom == 8 && reads_first_scans_only(&cinfo);
    cinfo.buffered_image = dc_only ? TRUE : FALSE;
    // Block smoothing guesses the missing AC coefficients, and libjpeg-turbo 2.1 also blurs the
    // DC of a DC-only scan from its neighbours: right for a preview of a partial download, wrong
    // for a thumbnail that has every coefficient an eighth reads.
    if (dc_only) cinfo.do_block_smoothing = FALSE;
    jpeg_start_decompress(&cinfo);
    info->output_width = (int)cinfo.output_width;
    info->output_height = (int)cinfo.output_height;
    if (dc_only) read_first_scans(&cinfo);

    size_t stride = 0;
    uint8_t *pixels = allocate(context, (int)cinfo.output_width, (int)cinfo.output_height, &stride);
    if (!pixels) {
        jpeg_destroy_decompress(&cinfo);
        return STRATA_JPEG_NO_MEMORY;
    }
    if (cmyk) {
        cmyk_row = malloc((size_t)cinfo.output_width * 4);
        if (!cmyk_row) {
            jpeg_destroy_decompress(&cinfo);
            return STRATA_JPEG_NO_MEMORY;
        }
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *row = pixels + (size_t)cinfo.output_scanline * stride;
        JSAMPROW target = cmyk ? cmyk_row : row;
        if (jpeg_read_scanlines(&cinfo, &target, 1) != 1) break;
        if (cmyk) cmyk_to_argb(cmyk_row, (uint32_t *)row, cinfo.output_width, cinfo.saw_Adobe_marker);
    }
    if (dc_only) {
        jpeg_finish_output(&cinfo);
        // The AC scans are left unread on purpose.
        jpeg_abort_decompress(&cinfo);
    } else {
        jpeg_finish_decompress(&cinfo);
    }
    jpeg_destroy_decompress(&cinfo);
    free(cmyk_row);
    return STRATA_JPEG_OK;
}

// The encode, with libjpeg's memory destination growing `*buffer` (malloc'ed, the caller's to
// free, failure or not). It lives outside this frame, so the longjmp leaves it intact.
static int encode_into(const uint8_t *pixels, int width, int height, size_t stride, int quality, int progressive,
                       unsigned char **buffer, unsigned long *size, StrataJPEGInfo *info) {
    struct jpeg_compress_struct cinfo;
    ErrorState state = { .info = info, .result = STRATA_JPEG_OK };
    if (setjmp(state.jump)) {
        jpeg_destroy_compress(&cinfo);
        // An encoder has no size limits to break: whatever failed, the data could not be made.
        return state.result == STRATA_JPEG_TOO_LARGE ? STRATA_JPEG_NO_MEMORY : STRATA_JPEG_CORRUPT;
    }
    cinfo.err = jpeg_std_error(&state.manager);
    state.manager.error_exit = fail;
    state.manager.emit_message = warn;
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, buffer, size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    cinfo.in_color_space = JCS_EXT_BGRX;
#else
    cinfo.in_color_space = JCS_EXT_XRGB;
#endif
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return STRATA_JPEG_OK;
}

int strata_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int quality, int progressive,
                       uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    StrataJPEGInfo info;
    memset(&info, 0, sizeof info);
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    int result = encode_into(pixels, width, height, stride, quality, progressive, &buffer, &size, &info);
    memcpy(message, info.message, sizeof info.message);
    if (result != STRATA_JPEG_OK) {
        free(buffer);
        return result;
    }
    *output = buffer;
    *output_size = size;
    return STRATA_JPEG_OK;
}
