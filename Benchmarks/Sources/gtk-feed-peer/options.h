// The command line (see README.md). No GTK in here.
#pragma once
#include <stdbool.h>
#include <stdio.h>

enum { OPTIONS_MAX_PHASES = 16, OPTIONS_MAX_GRID_COLUMNS = 16 };

typedef struct {
    double px_per_frame;   // the scroll step, in pixels per frame
    int frames;            // measured frames
} PhaseSpec;

typedef struct {
    bool help;
    bool dump;                       // --dump-items FIRST COUNT
    int dump_first, dump_count;
    const char *assets;              // --assets DIR
    PhaseSpec phases[OPTIONS_MAX_PHASES];
    int phase_count;
    int warmup_frames;               // before each phase, at its speed
    double refresh_hz;               // 0: the median interval measured in each phase
    int clicks;                      // synthetic clicks per measured phase
    int items;                       // the model's size
    int start_item;                  // brought into view before the first phase's warm-up
    bool box_rows;                   // --row-layout box (default grid)
    int body_width_chars;            // --body-width-chars (default 20; 0: GTK's default)
    int grid_columns;                // --grid COLUMNS: the grid variant's photos in a GtkGridView; 0: the feed
    const char *json_path;           // NULL: standard output
    double timeout_seconds;
    bool first_frame;                // --first-frame: report the first frame's presentation and exit
} Options;

/// Parses argv into `options`. On a bad argument returns false with a message in `error`.
bool options_parse(int argc, char **argv, Options *options, char *error, int error_size);
void options_print_usage(const char *program, FILE *file);
