#include "options.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void options_print_usage(const char *program, FILE *file) {
    fprintf(file,
        "usage: %s --assets DIR (--phases PX:FRAMES[,PX:FRAMES...] | --px-per-frame PX --frames N)\n"
        "          [--warmup-frames N] [--refresh-hz HZ] [--clicks K] [--items N] [--start-item I]\n"
        "          [--row-layout grid|box] [--body-width-chars N] [--json FILE] [--timeout-seconds S]\n"
        "       %s --assets DIR --grid COLUMNS (--phases ... | --px-per-frame PX ...) [--clicks 0] [...]\n"
        "       %s --assets DIR --first-frame [--items N] [--start-item I] [--timeout-seconds S]\n"
        "       %s [--grid COLUMNS] --dump-items FIRST COUNT\n"
        "\n"
        "The GTK4 peer of Strata's benchmark M9 feed_scroll: the feed of Examples/feed/CONTENT.md\n"
        "in a GtkListView, scrolled by a fixed number of pixels per frame from a tick callback.\n"
        "Prints one JSON object (to --json FILE, or standard output); progress goes to stderr.\n"
        "\n"
        "  --assets DIR          avatar-00.webp ... avatar-23.webp, picture-0.jpg ... picture-7.jpg,\n"
        "                        sticker-0.webp ... sticker-3.webp (CONTENT.md gives their sizes)\n"
        "  --phases SPEC         measured phases in order, each PX:FRAMES (pixels per frame, frames)\n"
        "  --px-per-frame PX     one phase of --frames N frames (default 600) at PX pixels per frame\n"
        "  --warmup-frames N     frames scrolled at a phase's speed before it is measured (120)\n"
        "  --refresh-hz HZ       the refresh rate for late frames (default: each phase's median interval)\n"
        "  --clicks K            synthetic clicks per phase, evenly spaced (1: mid-way; 0: none)\n"
        "  --items N             items in the list (10000)\n"
        "  --start-item I        bring item I into view before the first warm-up (1000; 0: the top)\n"
        "  --row-layout L        grid (default): avatar and text column in a GtkGridLayout;\n"
        "                        box: in a horizontal GtkBoxLayout (about 3x the layout work per bind)\n"
        "  --body-width-chars N  the body label's width-chars, its minimum width (20); 0 leaves GTK's\n"
        "                        default, which measures the body at width 0 on every bind\n"
        "  --grid COLUMNS        the grid variant: the photos of FeedKit's GridContent in a GtkGridView\n"
        "                        of COLUMNS columns (1...16) instead of the feed; no clicks\n"
        "  --json FILE           write the report there instead of standard output\n"
        "  --timeout-seconds S   give up with an error after S seconds (120)\n"
        "  --first-frame         M7: print when the first frame was committed and presented, and exit\n"
        "  --dump-items F C      print items F..F+C-1 as JSON lines and exit (no display needed);\n"
        "                        with --grid, the grid's photos\n"
        "\n"
        "Exit status: 0 success, 1 failure (no display, missing asset, timeout), 2 bad arguments.\n",
        program, program, program, program);
}

static bool fail(char *error, int size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, (size_t)size, format, arguments);
    va_end(arguments);
    return false;
}

/// A finite number in [minimum, maximum], the whole string.
static bool parse_double(const char *text, double minimum, double maximum, double *value) {
    if (!text || !*text) return false;
    char *end = NULL;
    errno = 0;
    double parsed = strtod(text, &end);
    if (errno || *end || !isfinite(parsed) || parsed < minimum || parsed > maximum) return false;
    *value = parsed;
    return true;
}

static bool parse_int(const char *text, long minimum, long maximum, int *value) {
    if (!text || !*text) return false;
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno || *end || parsed < minimum || parsed > maximum) return false;
    *value = (int)parsed;
    return true;
}

enum { MAX_FRAMES = 1000000 };
#define MAX_PX 10000.0

static bool parse_phases(const char *text, Options *options, char *error, int size) {
    char *copy = strdup(text);
    if (!copy) return fail(error, size, "out of memory");
    bool ok = true;
    options->phase_count = 0;
    char *save = NULL;
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(part, ':');
        if (options->phase_count == OPTIONS_MAX_PHASES) {
            ok = fail(error, size, "--phases: at most %d phases", OPTIONS_MAX_PHASES);
            break;
        }
        PhaseSpec *phase = &options->phases[options->phase_count];
        if (!colon) { ok = fail(error, size, "--phases: '%s' is not PX:FRAMES", part); break; }
        *colon = 0;
        if (!parse_double(part, 1e-3, MAX_PX, &phase->px_per_frame)) {
            ok = fail(error, size, "--phases: '%s' is not a number of pixels per frame in (0, %g]", part, MAX_PX);
            break;
        }
        if (!parse_int(colon + 1, 1, MAX_FRAMES, &phase->frames)) {
            ok = fail(error, size, "--phases: '%s' is not a number of frames in 1...%d", colon + 1, MAX_FRAMES);
            break;
        }
        options->phase_count++;
    }
    if (ok && options->phase_count == 0) ok = fail(error, size, "--phases: no phase in '%s'", text);
    free(copy);
    return ok;
}

bool options_parse(int argc, char **argv, Options *options, char *error, int size) {
    memset(options, 0, sizeof *options);
    options->warmup_frames = 120;
    options->clicks = 1;
    options->items = 10000;
    options->timeout_seconds = 120;
    options->body_width_chars = 20;
    options->start_item = 1000;
    const char *phases = NULL;
    double px = 0;
    int frames = 600;
    bool have_px = false, have_frames = false, have_clicks = false;
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        // Every option but --help takes a value (--dump-items two).
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) { options->help = true; return true; }
        if (!strcmp(name, "--first-frame")) { options->first_frame = true; continue; }
        if (!strcmp(name, "--dump-items")) {
            if (i + 2 >= argc) return fail(error, size, "--dump-items needs FIRST and COUNT");
            if (!parse_int(argv[i + 1], 0, 100000000, &options->dump_first))
                return fail(error, size, "--dump-items: FIRST '%s' is not an index in 0...100000000", argv[i + 1]);
            if (!parse_int(argv[i + 2], 0, 100000000, &options->dump_count))
                return fail(error, size, "--dump-items: COUNT '%s' is not a count in 0...100000000", argv[i + 2]);
            options->dump = true;
            i += 2;
            continue;
        }
        if (strncmp(name, "--", 2) != 0) return fail(error, size, "unexpected argument '%s'", name);
        if (!value) return fail(error, size, "%s needs a value", name);
        i++;
        if (!strcmp(name, "--assets")) {
            options->assets = value;
        } else if (!strcmp(name, "--phases")) {
            phases = value;
        } else if (!strcmp(name, "--px-per-frame")) {
            if (!parse_double(value, 1e-3, MAX_PX, &px))
                return fail(error, size, "--px-per-frame: '%s' is not a number in (0, %g]", value, MAX_PX);
            have_px = true;
        } else if (!strcmp(name, "--frames")) {
            if (!parse_int(value, 1, MAX_FRAMES, &frames))
                return fail(error, size, "--frames: '%s' is not a number in 1...%d", value, MAX_FRAMES);
            have_frames = true;
        } else if (!strcmp(name, "--warmup-frames")) {
            if (!parse_int(value, 0, MAX_FRAMES, &options->warmup_frames))
                return fail(error, size, "--warmup-frames: '%s' is not a number in 0...%d", value, MAX_FRAMES);
        } else if (!strcmp(name, "--refresh-hz")) {
            if (!parse_double(value, 1, 1000, &options->refresh_hz))
                return fail(error, size, "--refresh-hz: '%s' is not a number in 1...1000", value);
        } else if (!strcmp(name, "--clicks")) {
            if (!parse_int(value, 0, 1000, &options->clicks))
                return fail(error, size, "--clicks: '%s' is not a number in 0...1000", value);
            have_clicks = true;
        } else if (!strcmp(name, "--items")) {
            if (!parse_int(value, 1, 1000000, &options->items))
                return fail(error, size, "--items: '%s' is not a number in 1...1000000", value);
        } else if (!strcmp(name, "--start-item")) {
            if (!parse_int(value, 0, 100000000, &options->start_item))
                return fail(error, size, "--start-item: '%s' is not an index in 0...100000000", value);
        } else if (!strcmp(name, "--row-layout")) {
            if (!strcmp(value, "grid")) options->box_rows = false;
            else if (!strcmp(value, "box")) options->box_rows = true;
            else return fail(error, size, "--row-layout: '%s' is neither grid nor box", value);
        } else if (!strcmp(name, "--body-width-chars")) {
            if (!parse_int(value, 0, 1000, &options->body_width_chars))
                return fail(error, size, "--body-width-chars: '%s' is not a number in 0...1000", value);
        } else if (!strcmp(name, "--grid")) {
            if (!parse_int(value, 1, OPTIONS_MAX_GRID_COLUMNS, &options->grid_columns))
                return fail(error, size, "--grid: '%s' is not a number of columns in 1...%d", value, OPTIONS_MAX_GRID_COLUMNS);
        } else if (!strcmp(name, "--json")) {
            options->json_path = value;
        } else if (!strcmp(name, "--timeout-seconds")) {
            if (!parse_double(value, 0.1, 86400, &options->timeout_seconds))
                return fail(error, size, "--timeout-seconds: '%s' is not a number in 0.1...86400", value);
        } else {
            return fail(error, size, "unknown option '%s'", name);
        }
    }
    if (options->dump) return true;
    if (!options->assets) return fail(error, size, "--assets DIR is required");
    if (phases && (have_px || have_frames)) return fail(error, size, "give either --phases or --px-per-frame/--frames, not both");
    if (options->grid_columns) {
        // The photos have no action: a click would measure nothing the feed does not.
        if (have_clicks && options->clicks > 0)
            return fail(error, size, "--clicks %d: the grid variant has no clicks (give --clicks 0 or leave it out)", options->clicks);
        options->clicks = 0;
        if (options->first_frame) return fail(error, size, "--first-frame shows the feed; it takes no --grid");
    }
    if (options->first_frame) {
        if (phases || have_px) return fail(error, size, "--first-frame measures no phase");
    } else if (phases) {
        if (!parse_phases(phases, options, error, size)) return false;
    } else if (have_px) {
        options->phases[0] = (PhaseSpec){ px, frames };
        options->phase_count = 1;
    } else {
        return fail(error, size, "give --phases PX:FRAMES[,...] or --px-per-frame PX");
    }
    if (options->start_item >= options->items)
        return fail(error, size, "--start-item %d: the list has %d items", options->start_item, options->items);
    // A click is followed until its change is painted: several must be at least 10 frames apart.
    for (int i = 0; i < options->phase_count; i++) {
        if (options->clicks > 1 && options->phases[i].frames / options->clicks < 10)
            return fail(error, size, "--clicks %d: phase %d has %d frames; clicks must be at least 10 frames apart",
                        options->clicks, i + 1, options->phases[i].frames);
    }
    return true;
}
