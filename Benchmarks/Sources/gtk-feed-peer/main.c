// gtk-feed-peer: the GTK4 peer of Strata's benchmark M9 feed_scroll. See README.md beside this
// file for what it measures and how.
#include "content.h"
#include "feed.h"
#include "grid.h"
#include "options.h"
#include "report.h"
#include <gdk/wayland/gdkwayland.h>
#include <wayland-client.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t clock_ns(clockid_t clock) {
    struct timespec time;
    clock_gettime(clock, &time);
    return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
}

// MARK: The run

enum {
    /// Frames ticked after the last phase, so that its last frames get their presentation times
    /// (GDK keeps 16 frames of timings) and a late click its paint.
    DRAIN_FRAMES = 30,
    /// Room in the frame log for the frames before the first warm-up: mapping, and the seek.
    STARTUP_FRAMES_ALLOWED = 600,
};

typedef enum { STAGE_SEEK, STAGE_WARMUP, STAGE_MEASURE, STAGE_DRAIN, STAGE_DONE } Stage;

typedef struct {
    const Options *options;
    GtkWidget *window, *scroller, *list;   // list: the GtkListView, or the grid variant's GtkGridView
    int columns;                // items per line: 1 in the list, --grid's columns in the grid
    GtkAdjustment *adjustment;
    GdkFrameClock *clock;
    FeedCounters counters;
    GMainLoop *loop;
    int exit_status;

    Report report;              // every frame and phase; written at the end
    int64_t counter0;           // the frame counter of report.frames[0]
    gboolean logging;

    int seek_frames;            // frames spent bringing the start item to the top
    Stage stage;
    int phase_index;            // the phase being warmed up or measured
    int stage_frame;            // frames ticked in this stage
    int next_click;             // in the phase being measured

    double carried_px;          // the fraction of a pixel not scrolled yet
    int tracked_item;           // the item under the viewport's middle at the last frame, or -1
    double tracked_y;           // its top, in the list's coordinates

    ClickRecord *probe;         // the click being followed to its paint
    FeedRow *probe_row;
} Peer;

static FrameRecord *frame_record(Peer *peer, int64_t counter) {
    if (!peer->logging) return NULL;
    int64_t index = counter - peer->counter0;
    if (index < 0 || index >= peer->report.frame_capacity) return NULL;
    if (index >= peer->report.frame_count) peer->report.frame_count = (int)index + 1;
    return &peer->report.frames[index];
}

static void fail_now(Peer *peer, const char *message) {
    fprintf(stderr, "gtk-feed-peer: %s\n", message);
    peer->exit_status = 1;
    peer->stage = STAGE_DONE;
    g_main_loop_quit(peer->loop);
}

// MARK: Rows on screen

/// The item that a child of the list (or grid) shows in its FeedRow (or GridCell), or -1.
static int shown_item(GtkWidget *child) {
    GtkWidget *cell = gtk_widget_get_first_child(child);
    if (!cell || !gtk_widget_get_child_visible(child)) return -1;
    if (FEED_IS_ROW(cell)) {
        FeedItem *item = feed_row_item(FEED_ROW(cell));
        return item ? feed_item_content(item)->index : -1;
    }
    if (GRID_IS_CELL(cell)) {
        GridPhoto *photo = grid_cell_photo(GRID_CELL(cell));
        return photo ? grid_photo_content(photo)->index : -1;
    }
    return -1;
}

/// The bound row (in the grid, the first cell of the line) whose box contains `y` (in the list's
/// coordinates), its item in `index` and its top in `row_y`; with `item` >= 0, also that item's
/// top in `item_y` (NAN when it has no row now).
static GtkWidget *row_at(Peer *peer, double y, int *index, double *row_y, int item, double *item_y) {
    GtkWidget *found = NULL;
    if (item_y) *item_y = NAN;
    for (GtkWidget *child = gtk_widget_get_first_child(peer->list); child; child = gtk_widget_get_next_sibling(child)) {
        int shown = shown_item(child);
        graphene_rect_t bounds;
        if (shown < 0 || !gtk_widget_compute_bounds(child, peer->list, &bounds)) continue;
        if (item >= 0 && item_y && shown == item) *item_y = bounds.origin.y;
        if (!found && bounds.origin.y <= y && y < bounds.origin.y + bounds.size.height) {
            found = gtk_widget_get_first_child(child);
            *index = shown;
            *row_y = bounds.origin.y;
        }
    }
    return found;
}

/// How far the content really moved in the last frame: the row that was under the middle of the
/// viewport a frame earlier, where it is now (GtkListView re-bases its adjustment as it
/// re-estimates row heights, so the adjustment's value says little).
static void track_scrolling(Peer *peer, FrameRecord *painted) {
    double middle = gtk_widget_get_height(peer->list) / 2.0, row_y = 0, item_y = NAN;
    int index = -1;
    GtkWidget *row = row_at(peer, middle, &index, &row_y, peer->tracked_item, &item_y);
    if (painted && peer->tracked_item >= 0 && isfinite(item_y)) painted->moved_px = peer->tracked_y - item_y;
    peer->tracked_item = row ? index : -1;
    peer->tracked_y = row_y;
}

// MARK: Frame-clock hooks

/// The start of the update phase (connected at realize, before any tick callback). The main
/// thread's CPU clock is read first; then the instrumentation, whose own CPU time is recorded so
/// that it is not counted as the toolkit's: the last frame's scrolling is measured, and
/// presentation times are collected from GDK's 16-frame history of GdkFrameTimings.
static void on_update(GdkFrameClock *clock, Peer *peer) {
    int64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    int64_t counter = gdk_frame_clock_get_frame_counter(clock);
    if (!peer->logging) {
        peer->logging = TRUE;
        peer->counter0 = counter;
    }
    FrameRecord *record = frame_record(peer, counter);
    if (record) {
        record->seen = TRUE;
        record->counter = counter;
        record->thread_cpu_ns = cpu;
        record->update_us = g_get_monotonic_time();
        record->process_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        record->binds = peer->counters.binds;
        record->setups = peer->counters.setups;
        record->moved_px = NAN;
        int64_t monotonic = clock_ns(CLOCK_MONOTONIC), raw = clock_ns(CLOCK_MONOTONIC_RAW);
        record->monotonic_minus_raw_us = (monotonic - raw) / 1000;
    }
    FrameRecord *previous = frame_record(peer, counter - 1);
    track_scrolling(peer, previous && previous->seen ? previous : NULL);
    for (int64_t earlier = counter - 16; earlier < counter; earlier++) {
        FrameRecord *old = frame_record(peer, earlier);
        if (!old || !old->seen || old->timings_complete) continue;
        GdkFrameTimings *timings = gdk_frame_clock_get_timings(clock, earlier);
        if (!timings || !gdk_frame_timings_get_complete(timings)) continue;
        old->timings_complete = TRUE;
        old->presentation_us = gdk_frame_timings_get_presentation_time(timings);
        old->refresh_interval_us = gdk_frame_timings_get_refresh_interval(timings);
    }
    if (record) record->instrumentation_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
}

/// After GDK's own "layout" handler: the window is allocated.
static void on_layout_after(GdkFrameClock *clock, Peer *peer) {
    FrameRecord *record = frame_record(peer, gdk_frame_clock_get_frame_counter(clock));
    if (record) record->layout_end_us = g_get_monotonic_time();
}

/// After GDK's own "paint" handler, which rendered the window (GSK) into a buffer.
static void on_paint_after(GdkFrameClock *clock, Peer *peer) {
    FrameRecord *record = frame_record(peer, gdk_frame_clock_get_frame_counter(clock));
    if (record) {
        record->painted = TRUE;
        record->paint_end_us = g_get_monotonic_time();
    }
}

/// After GDK's own "after-paint" handler, which attached and committed the buffer.
static void on_after_paint_after(GdkFrameClock *clock, Peer *peer) {
    int64_t counter = gdk_frame_clock_get_frame_counter(clock);
    int64_t now = g_get_monotonic_time();
    FrameRecord *record = frame_record(peer, counter);
    if (record) record->after_paint_us = now;
    ClickRecord *click = peer->probe;
    if (click && click->painted_counter == counter) {
        click->after_paint_us = now;
        peer->probe = NULL;
        peer->probe_row = NULL;
    }
}

/// After every FeedRow snapshot: the first snapshot of the clicked row, still bound to the clicked
/// item and with its new name label ("✓ liked", or the name again), is the paint that contains
/// the change.
static void on_row_snapshot(FeedRow *row, gpointer data) {
    Peer *peer = data;
    ClickRecord *click = peer->probe;
    if (!click || row != peer->probe_row || click->painted_counter >= 0) return;
    FeedItem *item = feed_row_item(row);
    if (!item || feed_item_content(item)->index != click->item_index || feed_row_shows_liked(row) != click->liked) return;
    click->painted_counter = gdk_frame_clock_get_frame_counter(peer->clock);
    click->snapshot_us = g_get_monotonic_time();
}

// MARK: Clicks

/// The synthetic input: a GLib timeout at the priority of GDK's events, mid-way between two
/// frames, emits the GtkGestureClick "released" signal of the row under the middle of the
/// viewport, as GTK does for a real click once it has picked the widget.
static gboolean on_click_timeout(gpointer data) {
    ClickRecord *click = data;
    Peer *peer = click->peer;
    if (peer->stage == STAGE_DONE) return G_SOURCE_REMOVE;
    if (peer->probe) peer->probe->error = "superseded by the next click before its change was painted";
    peer->probe = NULL;
    double row_y = 0, middle = gtk_widget_get_height(peer->list) / 2.0;
    int index = -1;
    GtkWidget *found = row_at(peer, middle, &index, &row_y, -1, NULL);
    if (!found || !FEED_IS_ROW(found)) {
        click->error = "no row under the middle of the viewport";
        return G_SOURCE_REMOVE;
    }
    FeedRow *row = FEED_ROW(found);
    click->item_index = feed_item_content(feed_row_item(row))->index;
    click->event_counter = gdk_frame_clock_get_frame_counter(peer->clock);
    click->event_us = g_get_monotonic_time();
    g_signal_emit_by_name(feed_row_click_gesture(row), "released", 1, 100.0, middle - row_y);
    click->handled_us = g_get_monotonic_time();
    click->liked = feed_item_liked(feed_row_item(row));
    click->painted_counter = -1;
    peer->probe = click;
    peer->probe_row = row;
    return G_SOURCE_REMOVE;
}

/// Half the refresh interval: from --refresh-hz, or the median of the last 30 tick intervals.
static unsigned click_delay_ms(Peer *peer, int64_t counter) {
    double interval_ms = 1000.0 / 60;
    if (peer->options->refresh_hz > 0) {
        interval_ms = 1000.0 / peer->options->refresh_hz;
    } else {
        double intervals[30];
        int count = 0;
        for (int64_t c = counter - 30; c < counter; c++) {
            FrameRecord *a = frame_record(peer, c), *b = frame_record(peer, c + 1);
            if (a && b && a->tick_us && b->tick_us) intervals[count++] = (double)(b->tick_us - a->tick_us) / 1000.0;
        }
        if (count) interval_ms = report_percentile(intervals, count, 0.5);
    }
    unsigned delay = (unsigned)lround(interval_ms / 2);
    return delay ? delay : 1;
}

// MARK: The tick callback: scrolling and the phases

enum { SEEK_FRAMES_ALLOWED = 120 };

/// Brings the start item's top to the top of the viewport, a step a frame; TRUE once it is there.
/// GTK 4.8 has no gtk_list_view_scroll_to, and its "list.scroll-to-item" action ignores items
/// that have no row yet; so the adjustment is moved by the rows' mean height times the items
/// still to go, until the item has a row, and then by that row's distance from the top. The grid
/// is the same, per line of `columns` cells.
static gboolean seek(Peer *peer) {
    int target = peer->options->start_item;
    if (target == 0 && gtk_adjustment_get_value(peer->adjustment) == 0) return TRUE;
    // Before the first layout the rows GtkListView already made all sit at y = 0, which would
    // pass for a start item near the top (16, say) being there already.
    if (gtk_widget_get_height(peer->list) <= 0) return FALSE;
    double top_y = 0, target_y = NAN, heights = 0;
    int rows = 0, top_index = -1;
    GtkWidget *top = row_at(peer, 0, &top_index, &top_y, target, &target_y);
    for (GtkWidget *child = gtk_widget_get_first_child(peer->list); child; child = gtk_widget_get_next_sibling(child)) {
        if (gtk_widget_get_child_visible(child)) { heights += gtk_widget_get_height(child); rows++; }
    }
    double value = gtk_adjustment_get_value(peer->adjustment);
    double end = gtk_adjustment_get_upper(peer->adjustment) - gtk_adjustment_get_page_size(peer->adjustment);
    if (isfinite(target_y)) {
        // At the top, or as near as the end of the list allows.
        if (fabs(target_y) < 0.5 || (target_y > 0 && value >= end - 0.5)) return TRUE;
        value += target_y;
    } else if (top && rows) {
        value += (double)(target - top_index) / peer->columns * heights / rows;
    }
    if (++peer->seek_frames > SEEK_FRAMES_ALLOWED) {
        char message[128];
        snprintf(message, sizeof message, "could not bring item %d to the top in %d frames", target, SEEK_FRAMES_ALLOWED);
        fail_now(peer, message);
        return FALSE;
    }
    gtk_adjustment_set_value(peer->adjustment, fmax(value, 0));
    return FALSE;
}

static void begin_measuring(Peer *peer, int64_t counter) {
    PhaseRecord *phase = &peer->report.phases[peer->phase_index];
    phase->first_counter = counter;
    peer->stage = STAGE_MEASURE;
    peer->stage_frame = 0;
    peer->next_click = 0;
    fprintf(stderr, "gtk-feed-peer: phase %d: %d frames at %g px/frame\n", peer->phase_index + 1,
            phase->spec.frames, phase->spec.px_per_frame);
}

static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data) {
    (void)widget;
    Peer *peer = data;
    if (peer->stage == STAGE_DONE) return G_SOURCE_REMOVE;
    int64_t counter = gdk_frame_clock_get_frame_counter(clock);
    FrameRecord *record = frame_record(peer, counter);
    if (!record) {
        fail_now(peer, "the frame log is full: more start-up frames than expected, or the frame counter jumped");
        return G_SOURCE_REMOVE;
    }
    record->tick_us = g_get_monotonic_time();
    record->frame_time_us = gdk_frame_clock_get_frame_time(clock);
    record->phase = -1;
    if (peer->stage == STAGE_SEEK) {
        if (!seek(peer)) return G_SOURCE_CONTINUE;
        peer->stage = STAGE_WARMUP;
        peer->stage_frame = 0;
    }
    if (peer->stage == STAGE_WARMUP && peer->stage_frame >= peer->options->warmup_frames) begin_measuring(peer, counter);

    // The drain goes on at the last phase's speed.
    int speed_phase = peer->phase_index < peer->report.phase_count ? peer->phase_index : peer->report.phase_count - 1;
    PhaseRecord *phase = &peer->report.phases[speed_phase];
    if (peer->stage == STAGE_MEASURE) {
        record->phase = peer->phase_index;
        // Click j at measured frame (j + 0.5) × frames / clicks: a single click is mid-way.
        int clicks = phase->click_count;
        if (peer->next_click < clicks &&
            peer->stage_frame == (int)((peer->next_click + 0.5) * phase->spec.frames / clicks)) {
            ClickRecord *click = &phase->clicks[peer->next_click++];
            click->peer = peer;
            click->scheduled_counter = counter;
            click->delay_ms = click_delay_ms(peer, counter);
            g_timeout_add_full(G_PRIORITY_DEFAULT, click->delay_ms, on_click_timeout, click, NULL);
        }
    }

    // Scroll: a fixed step from wherever the list is now (as GtkScrolledWindow does for a wheel
    // or touchpad), back to the top at the end of the list. GtkListView re-bases the value on
    // whole pixels every frame, so the step is whole pixels too, and the fraction carries over:
    // 33.3 px a frame moves 33, 33, 34, ...
    double step = phase->spec.px_per_frame + peer->carried_px;
    double whole = round(step);
    peer->carried_px = step - whole;
    double value = gtk_adjustment_get_value(peer->adjustment) + whole;
    double end = gtk_adjustment_get_upper(peer->adjustment) - gtk_adjustment_get_page_size(peer->adjustment);
    if (value > end) {
        value = 0;
        if (peer->stage == STAGE_MEASURE) phase->wraps++;
    }
    gtk_adjustment_set_value(peer->adjustment, value);
    record->scroll_y = value;

    peer->stage_frame++;
    if (peer->stage == STAGE_MEASURE && peer->stage_frame == phase->spec.frames) {
        peer->phase_index++;
        peer->stage = peer->phase_index < peer->report.phase_count ? STAGE_WARMUP : STAGE_DRAIN;
        peer->stage_frame = 0;
    } else if (peer->stage == STAGE_DRAIN && peer->stage_frame >= DRAIN_FRAMES) {
        peer->stage = STAGE_DONE;
        g_main_loop_quit(peer->loop);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

// MARK: Start-up and failures

// MARK: --first-frame (M7)

// The first frame's commit and the wl_callback.done of a frame callback asked for with it, as
// M11 and M13 time theirs (InputLatency.swift turns them into a presentation time).
static struct {
    struct wl_callback *callback;
    int64_t committed_ns;
    long rows;
} first_frame;

static void on_first_frame_done(void *data, struct wl_callback *callback, uint32_t milliseconds) {
    (void)data;
    int64_t arrival = clock_ns(CLOCK_MONOTONIC);
    wl_callback_destroy(callback);
    printf("first_frame commit_ns=%lld presented_ms=%u presented_arrival_ns=%lld rows=%ld\n",
           (long long)first_frame.committed_ns, milliseconds, (long long)arrival, first_frame.rows);
    fflush(stdout);
    _exit(0);
}

static const struct wl_callback_listener first_frame_listener = { on_first_frame_done };

static void on_first_before_paint(GdkFrameClock *clock, Peer *peer) {
    (void)clock;
    if (first_frame.callback) return;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(peer->window));
    if (!surface || !GDK_IS_WAYLAND_SURFACE(surface)) return;
    first_frame.callback = wl_surface_frame(gdk_wayland_surface_get_wl_surface(surface));
    wl_callback_add_listener(first_frame.callback, &first_frame_listener, NULL);
}

static void on_first_after_paint(GdkFrameClock *clock, Peer *peer) {
    (void)clock;
    if (!first_frame.callback || first_frame.committed_ns) return;
    first_frame.committed_ns = clock_ns(CLOCK_MONOTONIC);
    first_frame.rows = peer->counters.setups;
}

static void on_realize(GtkWidget *window, Peer *peer) {
    // The frame clock exists from realize on. "update" first, before any widget's tick callback
    // connects; "layout", "paint" and "after-paint" after GDK's own handlers.
    peer->clock = gtk_widget_get_frame_clock(window);
    g_signal_connect(peer->clock, "update", G_CALLBACK(on_update), peer);
    g_signal_connect_after(peer->clock, "layout", G_CALLBACK(on_layout_after), peer);
    g_signal_connect_after(peer->clock, "paint", G_CALLBACK(on_paint_after), peer);
    g_signal_connect_after(peer->clock, "after-paint", G_CALLBACK(on_after_paint_after), peer);
    if (peer->options->first_frame) {
        g_signal_connect(peer->clock, "before-paint", G_CALLBACK(on_first_before_paint), peer);
        g_signal_connect_after(peer->clock, "after-paint", G_CALLBACK(on_first_after_paint), peer);
    }
    GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(window));
    snprintf(peer->report.renderer, sizeof peer->report.renderer, "%s", renderer ? G_OBJECT_TYPE_NAME(renderer) : "none");
    fprintf(stderr, "gtk-feed-peer: GTK %u.%u.%u, renderer %s, display %s\n", gtk_get_major_version(),
            gtk_get_minor_version(), gtk_get_micro_version(), peer->report.renderer,
            G_OBJECT_TYPE_NAME(gtk_widget_get_display(window)));
}

static void on_map(GtkWidget *window, Peer *peer) {
    (void)window;
    // The first frame shows the list as it opens: nothing scrolls it.
    if (peer->options->first_frame) return;
    gtk_widget_add_tick_callback(peer->list, on_tick, peer, NULL);
}

static gboolean on_close_request(GtkWindow *window, Peer *peer) {
    (void)window;
    if (peer->stage != STAGE_DONE) fail_now(peer, "the window was closed before the run ended");
    return TRUE;
}

static gboolean on_timeout(gpointer data) {
    Peer *peer = data;
    static const char *const stages[] = { "seeking the start item", "warming up", "measuring", "draining", "done" };
    char message[256];
    snprintf(message, sizeof message, "timed out after %g s, %s phase %d at frame %d (%d frames in all)",
             peer->options->timeout_seconds, stages[peer->stage], peer->phase_index + 1, peer->stage_frame,
             peer->report.frame_count);
    fail_now(peer, message);
    return G_SOURCE_REMOVE;
}

/// The --json file, created at start so that a bad path fails at once; removed again when the
/// run fails, so that an empty or partial report is never mistaken for one.
static const char *created_json_path;

static void on_assets_failed(const char *message, gpointer data) { fail_now(data, message); }

static int fail_with(int status) {
    if (created_json_path) unlink(created_json_path);
    return status;
}

/// The last resort, when the main loop itself is stuck (in a blocking Wayland call, say).
static void on_alarm(int signal_number) {
    (void)signal_number;
    static const char message[] = "gtk-feed-peer: the main loop did not stop at the timeout; exiting\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    if (created_json_path) unlink(created_json_path);
    _exit(1);
}

int main(int argc, char **argv) {
    Options options;
    char error[512];
    if (!options_parse(argc, argv, &options, error, sizeof error)) {
        fprintf(stderr, "gtk-feed-peer: %s\n(see --help)\n", error);
        return 2;
    }
    if (options.help) {
        options_print_usage(argv[0], stdout);
        return 0;
    }
    if (options.dump) {
        FeedContent item;
        GridContent photo;
        for (int i = 0; i < options.dump_count; i++) {
            if (options.grid_columns) {
                grid_content_generate(options.dump_first + i, &photo);
                grid_content_write_json(&photo, stdout);
            } else {
                feed_content_generate(options.dump_first + i, &item);
                feed_content_write_json(&item, stdout);
            }
        }
        return fflush(stdout) == 0 ? 0 : 1;
    }

    // The hard limit first: nothing below may hang for long.
    signal(SIGALRM, on_alarm);
    alarm((unsigned)ceil(options.timeout_seconds) + 10);

    FILE *json = stdout;
    if (options.json_path && !(json = fopen(options.json_path, "w"))) {
        fprintf(stderr, "gtk-feed-peer: cannot write --json %s: %s\n", options.json_path, strerror(errno));
        return 2;
    }
    if (options.json_path) created_json_path = options.json_path;

    // No GPU here: GSK's cairo renderer, unless the caller chose another. No accessibility bus.
    // Wayland only.
    setenv("GSK_RENDERER", "cairo", 0);
    setenv("GTK_A11Y", "none", 0);
    setenv("GDK_BACKEND", "wayland", 0);

    Peer peer = { .options = &options, .tracked_item = -1 };
    if (!report_init(&peer.report, &options, STARTUP_FRAMES_ALLOWED + DRAIN_FRAMES)) {
        fprintf(stderr, "gtk-feed-peer: out of memory for the frame log\n");
        return fail_with(1);
    }

    // The assets' headers before the display, so that a missing or wrongly sized file is reported
    // with no compositor at all. The images themselves are decoded as rows first show them.
    GError *load_error = NULL;
    int64_t start = g_get_monotonic_time();
    FeedAssets *assets = feed_assets_new(options.assets, &load_error);
    if (!assets) {
        fprintf(stderr, "gtk-feed-peer: --assets %s: %s\n", options.assets, load_error->message);
        return fail_with(1);
    }
    peer.report.textures_ms = (double)(g_get_monotonic_time() - start) / 1000.0;
    // A file that cannot be decoded after all ends the run as a timeout does.
    peer.loop = g_main_loop_new(NULL, FALSE);
    feed_assets_set_failure_handler(assets, on_assets_failed, &peer);

    if (!gtk_init_check()) {
        const char *display = getenv("WAYLAND_DISPLAY"), *runtime = getenv("XDG_RUNTIME_DIR");
        fprintf(stderr, "gtk-feed-peer: cannot open a Wayland display (WAYLAND_DISPLAY=%s, XDG_RUNTIME_DIR=%s)\n",
                display ? display : "(unset)", runtime ? runtime : "(unset)");
        return fail_with(1);
    }
    snprintf(peer.report.gsk_renderer_env, sizeof peer.report.gsk_renderer_env, "%s", getenv("GSK_RENDERER"));

    // The model: every item generated up front, as the data a feed app has loaded.
    start = g_get_monotonic_time();
    GListModel *model = options.grid_columns ? grid_model_new(options.items) : feed_model_new(options.items);
    peer.report.model_ms = (double)(g_get_monotonic_time() - start) / 1000.0;

    GdkDisplay *display = gdk_display_get_default();
    if (options.grid_columns) grid_install_css(display);
    else feed_install_css(display);
    peer.window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(peer.window), "gtk-feed-peer");
    // Undecorated: the whole 1280×800 surface is the list (GTK4 on Wayland draws its own title
    // bar and shadows otherwise, whose size differs between tiled and floating windows).
    gtk_window_set_decorated(GTK_WINDOW(peer.window), FALSE);
    gtk_window_set_default_size(GTK_WINDOW(peer.window), 1280, 800);
    gtk_widget_add_css_class(peer.window, options.grid_columns ? "photos" : "feed");
    peer.scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(peer.scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    FeedOptions feed_options = {
        .row_layout = options.box_rows ? FEED_ROW_LAYOUT_BOX : FEED_ROW_LAYOUT_GRID,
        .body_width_chars = options.body_width_chars,
    };
    if (options.grid_columns) {
        peer.list = grid_view_new(model, assets, options.grid_columns, &peer.counters);
        peer.columns = options.grid_columns;
    } else {
        peer.list = feed_list_view_new(model, assets, &feed_options, &peer.counters);
        peer.columns = 1;
    }
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(peer.scroller), peer.list);
    gtk_window_set_child(GTK_WINDOW(peer.window), peer.scroller);
    peer.adjustment = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(peer.scroller));
    feed_row_set_snapshot_hook(on_row_snapshot, &peer);

    g_signal_connect(peer.window, "realize", G_CALLBACK(on_realize), &peer);
    g_signal_connect(peer.window, "map", G_CALLBACK(on_map), &peer);
    g_signal_connect(peer.window, "close-request", G_CALLBACK(on_close_request), &peer);
    if (peer.exit_status != 0) return fail_with(peer.exit_status);   // an image failed already
    g_timeout_add_full(G_PRIORITY_HIGH, (guint)ceil(options.timeout_seconds * 1000), on_timeout, &peer, NULL);
    gtk_window_present(GTK_WINDOW(peer.window));
    g_main_loop_run(peer.loop);
    if (peer.exit_status != 0) return fail_with(peer.exit_status);

    peer.report.counter0 = peer.counter0;
    peer.report.window_width = gtk_widget_get_width(peer.window);
    peer.report.window_height = gtk_widget_get_height(peer.window);
    peer.report.scale = gtk_widget_get_scale_factor(peer.window);
    peer.report.list_width = gtk_widget_get_width(peer.list);
    peer.report.list_height = gtk_widget_get_height(peer.list);
    peer.report.rows_created = peer.counters.setups;
    // Read back from the view, not the option, so the validity check sees what was shown.
    peer.report.grid_columns = GTK_IS_GRID_VIEW(peer.list) ? (int)gtk_grid_view_get_max_columns(GTK_GRID_VIEW(peer.list)) : 0;
    snprintf(peer.report.display_type, sizeof peer.report.display_type, "%s", G_OBJECT_TYPE_NAME(display));
    report_finish(&peer.report);
    report_write(&peer.report, json);
    if (json != stdout ? fclose(json) != 0 : fflush(json) != 0) {
        fprintf(stderr, "gtk-feed-peer: writing the report failed: %s\n", strerror(errno));
        return fail_with(1);
    }
    report_print_summary(&peer.report, stderr);
    return 0;
}
