// What the peer records, and the JSON report it writes (see README.md, "The report"). No GTK in
// here.
#pragma once
#include "options.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/// One frame of the frame clock, from the first "update" on. Times are CLOCK_MONOTONIC
/// microseconds (g_get_monotonic_time); 0 is "not recorded".
typedef struct {
    bool seen;                    // its "update" phase ran
    bool painted;                 // its "paint" phase ran
    bool timings_complete;        // GDK marked its GdkFrameTimings complete
    int phase;                    // the measured phase it belongs to, or -1
    int64_t counter;              // gdk_frame_clock_get_frame_counter
    int64_t update_us;            // the start of the update phase (our first "update" handler)
    int64_t tick_us;              // our tick callback
    int64_t frame_time_us;        // gdk_frame_clock_get_frame_time
    int64_t layout_end_us;        // after GDK's "layout" handlers: the window is allocated
    int64_t paint_end_us;         // after GDK's "paint" handlers: the window is rendered
    int64_t after_paint_us;       // after GDK's "after-paint" handlers: the buffer is committed
    int64_t presentation_us;      // GdkFrameTimings presentation time (wp_presentation), or 0
    int64_t refresh_interval_us;  // GdkFrameTimings refresh interval, or 0
    int64_t thread_cpu_ns;        // the main thread's CPU clock at the start of the update phase
    int64_t instrumentation_ns;   // the main thread's CPU time in the peer's own bookkeeping then
    int64_t process_cpu_ns;       // the process's CPU clock, at the same moment
    int64_t monotonic_minus_raw_us; // CLOCK_MONOTONIC − CLOCK_MONOTONIC_RAW, at the same moment
    long binds, setups;           // factory binds and setups (rows made) so far, at the same moment
    double scroll_y;              // the adjustment's value set by the tick
    double moved_px;              // how far the content moved on screen in this frame, or NAN
} FrameRecord;

/// One synthetic click, followed until a paint contains its change.
typedef struct {
    void *peer;
    int64_t scheduled_counter;    // the frame whose tick scheduled it
    unsigned delay_ms;            // how long after that tick
    int64_t event_counter;        // the frame clock's counter when it was delivered
    int64_t event_us;             // when it was delivered (just before the handler)
    int64_t handled_us;           // when the handler returned
    int item_index;               // the item clicked
    bool liked;                   // whether the click liked it (or unliked it)
    int64_t painted_counter;      // the frame whose paint first snapshotted the changed row, or -1
    int64_t snapshot_us;          // that snapshot
    int64_t after_paint_us;       // the end of that frame's after-paint (its buffer committed)
    const char *error;            // why it has no figure, or NULL
} ClickRecord;

typedef struct {
    PhaseSpec spec;
    int64_t first_counter;
    int wraps;                    // times the list went back to the top while measured
    ClickRecord *clicks;
    int click_count;
} PhaseRecord;

typedef struct {
    const Options *options;
    FrameRecord *frames;
    int frame_capacity, frame_count;
    int64_t counter0;             // the frame counter of frames[0]
    PhaseRecord *phases;
    int phase_count;
    char renderer[64], gsk_renderer_env[64], display_type[64];
    const char *presentation_clock;   // set by report_finish
    double textures_ms, model_ms;
    int64_t started_us;
    int window_width, window_height, list_width, list_height;
    int scale;                    // the window surface's scale factor
    long rows_created;
    int grid_columns;             // the grid view's columns as it shows them; 0 for the list
} Report;

/// Room for every phase's warm-up and measured frames, plus `extra_frames`.
bool report_init(Report *report, const Options *options, int extra_frames);
/// Nearest rank, as BenchKit's SampleSet: the value at rank ceil(fraction × count). Sorts `values`.
double report_percentile(double *values, int count, double fraction);
/// Puts presentation times on CLOCK_MONOTONIC. GDK passes wp_presentation's timestamps on as
/// they are, in the compositor's clock: CLOCK_MONOTONIC for sway, CLOCK_MONOTONIC_RAW for
/// weston. The clock is the one in which presentations follow their commits by 0 to 1 s.
void report_finish(Report *report);
void report_write(const Report *report, FILE *out);
/// One line per phase, for people.
void report_print_summary(const Report *report, FILE *out);
