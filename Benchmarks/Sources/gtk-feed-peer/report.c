#include "report.h"
#include "content.h"
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool report_init(Report *report, const Options *options, int extra_frames) {
    memset(report, 0, sizeof *report);
    report->options = options;
    report->presentation_clock = "none";
    long capacity = extra_frames;
    for (int i = 0; i < options->phase_count; i++) capacity += options->warmup_frames + options->phases[i].frames;
    if (capacity > 50000000) return false;
    report->frame_capacity = (int)capacity;
    report->frames = calloc((size_t)capacity, sizeof *report->frames);
    report->phase_count = options->phase_count;
    report->phases = calloc((size_t)options->phase_count, sizeof *report->phases);
    if (!report->frames || !report->phases) return false;
    for (int i = 0; i < options->phase_count; i++) {
        PhaseRecord *phase = &report->phases[i];
        phase->spec = options->phases[i];
        phase->first_counter = -1;
        phase->click_count = options->clicks;
        phase->clicks = calloc((size_t)(options->clicks ? options->clicks : 1), sizeof *phase->clicks);
        if (!phase->clicks) return false;
        for (int j = 0; j < options->clicks; j++) {
            phase->clicks[j].painted_counter = -1;
            phase->clicks[j].item_index = -1;
        }
    }
    return true;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double report_percentile(double *values, int count, double fraction) {
    if (count <= 0) return NAN;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    int rank = (int)ceil(fmin(fmax(fraction, 0), 1) * count) - 1;
    if (rank < 0) rank = 0;
    if (rank > count - 1) rank = count - 1;
    return values[rank];
}

// MARK: Samples

/// A growable list of finite values.
typedef struct { double *values; int count, capacity; } Samples;

static void samples_add(Samples *samples, double value) {
    if (!isfinite(value)) return;
    if (samples->count == samples->capacity) {
        int capacity = samples->capacity ? samples->capacity * 2 : 64;
        double *values = realloc(samples->values, (size_t)capacity * sizeof *values);
        if (!values) return;
        samples->values = values;
        samples->capacity = capacity;
    }
    samples->values[samples->count++] = value;
}

static void samples_free(Samples *samples) { free(samples->values); }

typedef struct { int count; double p50, p99, max, mean; } Summary;

static Summary summarize(const Samples *samples) {
    Summary summary = { samples->count, NAN, NAN, NAN, NAN };
    if (samples->count == 0) return summary;
    double *sorted = malloc((size_t)samples->count * sizeof *sorted);
    if (!sorted) return summary;
    memcpy(sorted, samples->values, (size_t)samples->count * sizeof *sorted);
    double sum = 0;
    for (int i = 0; i < samples->count; i++) sum += sorted[i];
    summary.p50 = report_percentile(sorted, samples->count, 0.5);
    summary.p99 = report_percentile(sorted, samples->count, 0.99);
    summary.max = sorted[samples->count - 1];
    summary.mean = sum / samples->count;
    free(sorted);
    return summary;
}

static double samples_median(const Samples *samples) { return summarize(samples).p50; }

// MARK: Frames

static const FrameRecord *frame_at(const Report *report, int64_t counter) {
    int64_t index = counter - report->counter0;
    if (index < 0 || index >= report->frame_count) return NULL;
    const FrameRecord *frame = &report->frames[index];
    return frame->seen ? frame : NULL;
}

/// The main thread's CPU time from this frame's update to the next one's, less the peer's own
/// bookkeeping: the frame's update, layout and paint, and whatever the loop did until the next
/// frame (input, timers).
static double busy_ms(const Report *report, int64_t counter) {
    const FrameRecord *frame = frame_at(report, counter), *next = frame_at(report, counter + 1);
    if (!frame || !next) return NAN;
    return (double)(next->thread_cpu_ns - frame->thread_cpu_ns - frame->instrumentation_ns) / 1e6;
}

/// Factory binds in this frame (between its update and the next one's): GtkListView binds rows
/// in the layout phase.
static double binds_in(const Report *report, int64_t counter) {
    const FrameRecord *frame = frame_at(report, counter), *next = frame_at(report, counter + 1);
    return frame && next ? (double)(next->binds - frame->binds) : NAN;
}

void report_finish(Report *report) {
    Samples as_monotonic = { 0 }, as_raw = { 0 };
    for (int i = 0; i < report->frame_count; i++) {
        const FrameRecord *frame = &report->frames[i];
        if (!frame->seen || !frame->presentation_us || !frame->after_paint_us) continue;
        samples_add(&as_monotonic, (double)(frame->presentation_us - frame->after_paint_us));
        samples_add(&as_raw, (double)(frame->presentation_us + frame->monotonic_minus_raw_us - frame->after_paint_us));
    }
    double monotonic = samples_median(&as_monotonic), raw = samples_median(&as_raw);
    samples_free(&as_monotonic);
    samples_free(&as_raw);
    // A presentation follows its commit (the end of after-paint), within a second.
    bool monotonic_plausible = monotonic >= -1000 && monotonic < 1e6, raw_plausible = raw >= -1000 && raw < 1e6;
    if (isnan(monotonic)) {
        report->presentation_clock = "none";
    } else if (monotonic_plausible) {
        report->presentation_clock = "CLOCK_MONOTONIC";
    } else if (raw_plausible) {
        report->presentation_clock = "CLOCK_MONOTONIC_RAW, converted";
        for (int i = 0; i < report->frame_count; i++) {
            FrameRecord *frame = &report->frames[i];
            if (frame->seen && frame->presentation_us) frame->presentation_us += frame->monotonic_minus_raw_us;
        }
    } else {
        // Intervals still hold; times against the peer's clock do not.
        report->presentation_clock = "unknown";
    }
}

static bool presentation_comparable(const Report *report) {
    return !strcmp(report->presentation_clock, "CLOCK_MONOTONIC") ||
           !strcmp(report->presentation_clock, "CLOCK_MONOTONIC_RAW, converted");
}

static double click_ms(const Report *report, const ClickRecord *click, bool presentation) {
    if (click->error || click->painted_counter < 0 || !click->after_paint_us) return NAN;
    if (!presentation) return (double)(click->after_paint_us - click->event_us) / 1000.0;
    const FrameRecord *frame = frame_at(report, click->painted_counter);
    if (!frame || !frame->presentation_us || !presentation_comparable(report)) return NAN;
    return (double)(frame->presentation_us - click->event_us) / 1000.0;
}

// MARK: A phase's figures

typedef struct {
    int frames, frames_seen, frames_painted, frames_presented;
    Summary busy, phases_wall, tick_intervals, presentation_intervals, moved, binds;
    const char *interval_source;   // "presentation" or "tick"
    double refresh_interval_ms, compositor_refresh_ms;
    const char *refresh_source;
    double late_threshold_ms;
    int late_frames;
    double main_thread_cpu_ms, process_cpu_ms, wall_ms, content_moved_px;
    long binds_total, rows_created;
    int scroll_mismatches;
    Summary latency_frames, latency_paint, latency_presentation;
    int clicks_painted;
} PhaseFigures;

static PhaseFigures phase_figures(const Report *report, const PhaseRecord *phase) {
    PhaseFigures figures = { .frames = phase->spec.frames };
    Samples busy = { 0 }, wall = { 0 }, ticks = { 0 }, presented = { 0 }, moved = { 0 }, binds = { 0 }, refresh = { 0 };
    Samples latency_frames = { 0 }, latency_paint = { 0 }, latency_presentation = { 0 };
    for (int k = 0; k < phase->spec.frames && phase->first_counter >= 0; k++) {
        int64_t counter = phase->first_counter + k;
        const FrameRecord *frame = frame_at(report, counter), *previous = frame_at(report, counter - 1);
        if (!frame) continue;
        figures.frames_seen++;
        if (frame->painted) figures.frames_painted++;
        if (frame->presentation_us) figures.frames_presented++;
        double b = busy_ms(report, counter);
        samples_add(&busy, b);
        if (isfinite(b)) figures.main_thread_cpu_ms += b;
        samples_add(&binds, binds_in(report, counter));
        if (frame->update_us && frame->after_paint_us) samples_add(&wall, (double)(frame->after_paint_us - frame->update_us) / 1000.0);
        if (previous && previous->tick_us && frame->tick_us) samples_add(&ticks, (double)(frame->tick_us - previous->tick_us) / 1000.0);
        if (previous && previous->presentation_us && frame->presentation_us)
            samples_add(&presented, (double)(frame->presentation_us - previous->presentation_us) / 1000.0);
        if (frame->presentation_us && frame->refresh_interval_us) samples_add(&refresh, (double)frame->refresh_interval_us / 1000.0);
        samples_add(&moved, frame->moved_px);
        if (isfinite(frame->moved_px)) {
            figures.content_moved_px += frame->moved_px;
            // Allocations are whole pixels: 33.3 px a frame moves 33 or 34.
            if (fabs(frame->moved_px - phase->spec.px_per_frame) > 1) figures.scroll_mismatches++;
        }
    }
    figures.busy = summarize(&busy);
    figures.phases_wall = summarize(&wall);
    figures.tick_intervals = summarize(&ticks);
    figures.presentation_intervals = summarize(&presented);
    figures.moved = summarize(&moved);
    figures.binds = summarize(&binds);

    // Presentation intervals when every measured frame has one (weston), else tick intervals
    // (sway headless answers almost no presentation feedback).
    bool use_presentation = presented.count == phase->spec.frames && phase->spec.frames > 0;
    figures.interval_source = use_presentation ? "presentation" : "tick";
    const Samples *intervals = use_presentation ? &presented : &ticks;
    // The compositor's refresh from presentation feedback is reported, not used: headless
    // weston says 60 Hz and repaints every 26 ms or so.
    figures.compositor_refresh_ms = samples_median(&refresh);
    if (report->options->refresh_hz > 0) {
        figures.refresh_interval_ms = 1000.0 / report->options->refresh_hz;
        figures.refresh_source = "--refresh-hz";
    } else {
        figures.refresh_interval_ms = samples_median(intervals);
        figures.refresh_source = "median interval";
    }
    figures.late_threshold_ms = 1.5 * figures.refresh_interval_ms;
    for (int i = 0; i < intervals->count; i++) if (intervals->values[i] > figures.late_threshold_ms) figures.late_frames++;

    if (phase->first_counter >= 0) {
        const FrameRecord *first = frame_at(report, phase->first_counter);
        const FrameRecord *after = frame_at(report, phase->first_counter + phase->spec.frames);
        if (first && after) {
            figures.process_cpu_ms = (double)(after->process_cpu_ns - first->process_cpu_ns) / 1e6;
            figures.binds_total = after->binds - first->binds;
            figures.rows_created = after->setups - first->setups;
            figures.wall_ms = (double)(after->update_us - first->update_us) / 1000.0;
        }
    }
    for (int j = 0; j < phase->click_count; j++) {
        const ClickRecord *click = &phase->clicks[j];
        if (click->error || click->painted_counter < 0 || !click->after_paint_us) continue;
        figures.clicks_painted++;
        samples_add(&latency_frames, (double)(click->painted_counter - click->event_counter));
        samples_add(&latency_paint, click_ms(report, click, false));
        samples_add(&latency_presentation, click_ms(report, click, true));
    }
    figures.latency_frames = summarize(&latency_frames);
    figures.latency_paint = summarize(&latency_paint);
    figures.latency_presentation = summarize(&latency_presentation);
    Samples *all[] = { &busy, &wall, &ticks, &presented, &moved, &binds, &refresh, &latency_frames, &latency_paint,
                       &latency_presentation };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) samples_free(all[i]);
    return figures;
}

// MARK: JSON

static void json_double(FILE *out, double value) {
    if (isfinite(value)) fprintf(out, "%.4f", value);
    else fputs("null", out);
}

static void json_field_double(FILE *out, const char *name, double value) {
    fprintf(out, ",\"%s\":", name);
    json_double(out, value);
}

static void json_summary(FILE *out, const char *name, Summary summary) {
    fprintf(out, ",\"%s\":{\"count\":%d", name, summary.count);
    json_field_double(out, "p50", summary.p50);
    json_field_double(out, "p99", summary.p99);
    json_field_double(out, "max", summary.max);
    json_field_double(out, "mean", summary.mean);
    fputc('}', out);
}

static void json_microseconds(FILE *out, int64_t value) {
    if (value) fprintf(out, "%lld", (long long)value);
    else fputs("null", out);
}

typedef enum {
    COLUMN_COUNTER, COLUMN_UPDATE, COLUMN_TICK, COLUMN_FRAME_TIME, COLUMN_LAYOUT_END, COLUMN_PAINT_END,
    COLUMN_AFTER_PAINT, COLUMN_PRESENTATION, COLUMN_BUSY, COLUMN_BINDS, COLUMN_SCROLL, COLUMN_MOVED,
} Column;

static const struct { const char *name; Column column; } columns[] = {
    { "frame", COLUMN_COUNTER }, { "update_us", COLUMN_UPDATE }, { "tick_us", COLUMN_TICK },
    { "frame_time_us", COLUMN_FRAME_TIME }, { "layout_end_us", COLUMN_LAYOUT_END },
    { "paint_end_us", COLUMN_PAINT_END }, { "after_paint_us", COLUMN_AFTER_PAINT },
    { "presentation_us", COLUMN_PRESENTATION }, { "busy_us", COLUMN_BUSY }, { "binds", COLUMN_BINDS },
    { "adjustment_value", COLUMN_SCROLL }, { "moved_px", COLUMN_MOVED },
};

static void json_column(FILE *out, const Report *report, const PhaseRecord *phase, Column column) {
    fputc('[', out);
    for (int k = 0; k < phase->spec.frames; k++) {
        if (k) fputc(',', out);
        int64_t counter = phase->first_counter + k;
        const FrameRecord *frame = phase->first_counter >= 0 ? frame_at(report, counter) : NULL;
        if (!frame) { fputs("null", out); continue; }
        switch (column) {
        case COLUMN_COUNTER: fprintf(out, "%lld", (long long)frame->counter); break;
        case COLUMN_UPDATE: json_microseconds(out, frame->update_us); break;
        case COLUMN_TICK: json_microseconds(out, frame->tick_us); break;
        case COLUMN_FRAME_TIME: json_microseconds(out, frame->frame_time_us); break;
        case COLUMN_LAYOUT_END: json_microseconds(out, frame->layout_end_us); break;
        case COLUMN_PAINT_END: json_microseconds(out, frame->paint_end_us); break;
        case COLUMN_AFTER_PAINT: json_microseconds(out, frame->after_paint_us); break;
        case COLUMN_PRESENTATION: json_microseconds(out, frame->presentation_us); break;
        case COLUMN_BUSY: {
            double busy = busy_ms(report, counter);
            if (isfinite(busy)) fprintf(out, "%.0f", busy * 1000);
            else fputs("null", out);
            break;
        }
        case COLUMN_BINDS: {
            double binds = binds_in(report, counter);
            if (isfinite(binds)) fprintf(out, "%.0f", binds);
            else fputs("null", out);
            break;
        }
        case COLUMN_SCROLL: fprintf(out, "%.1f", frame->scroll_y); break;
        case COLUMN_MOVED:
            if (isfinite(frame->moved_px)) fprintf(out, "%.1f", frame->moved_px);
            else fputs("null", out);
            break;
        }
    }
    fputc(']', out);
}

static void json_click(FILE *out, const Report *report, const ClickRecord *click) {
    fprintf(out, "{\"scheduled_frame\":%lld,\"delay_ms\":%u,\"event_frame\":", (long long)click->scheduled_counter,
            click->delay_ms);
    if (click->event_us) fprintf(out, "%lld", (long long)click->event_counter);
    else fputs("null", out);
    fputs(",\"event_us\":", out);
    json_microseconds(out, click->event_us);
    fprintf(out, ",\"item\":%d", click->item_index);
    json_field_double(out, "handler_ms",
                      click->handled_us && click->event_us ? (double)(click->handled_us - click->event_us) / 1000.0 : NAN);
    fputs(",\"painted_frame\":", out);
    if (click->painted_counter >= 0) fprintf(out, "%lld", (long long)click->painted_counter);
    else fputs("null", out);
    fputs(",\"frames_to_visible\":", out);
    if (click->painted_counter >= 0) fprintf(out, "%lld", (long long)(click->painted_counter - click->event_counter));
    else fputs("null", out);
    json_field_double(out, "event_to_paint_ms", click_ms(report, click, false));
    json_field_double(out, "event_to_presentation_ms", click_ms(report, click, true));
    fputs(",\"error\":", out);
    const char *error = click->error;
    if (!error && !click->event_us) error = "the click was never delivered";
    if (!error && click->painted_counter < 0) error = "the change was never painted";
    if (!error && !click->after_paint_us) error = "the frame that painted the change never ended";
    if (error) json_write_string(out, error);
    else fputs("null", out);
    fputc('}', out);
}

void report_write(const Report *report, FILE *out) {
    const Options *options = report->options;
    fprintf(out, "{\"peer\":\"gtk4\",\"format\":1,\"gtk_version\":\"%u.%u.%u\",\"renderer\":",
            gtk_get_major_version(), gtk_get_minor_version(), gtk_get_micro_version());
    json_write_string(out, report->renderer);
    fputs(",\"gsk_renderer_env\":", out);
    json_write_string(out, report->gsk_renderer_env);
    fputs(",\"display\":", out);
    json_write_string(out, report->display_type);
    fputs(",\"presentation_clock\":", out);
    json_write_string(out, report->presentation_clock);
    fprintf(out, ",\"window\":{\"width\":%d,\"height\":%d,\"scale\":%d},\"list\":{\"width\":%d,\"height\":%d}",
            report->window_width, report->window_height, report->scale, report->list_width, report->list_height);
    fprintf(out, ",\"items\":%d,\"row_layout\":\"%s\",\"body_width_chars\":%d,\"rows_created\":%ld", options->items,
            options->box_rows ? "box" : "grid", options->body_width_chars, report->rows_created);
    if (report->grid_columns) fprintf(out, ",\"grid_columns\":%d", report->grid_columns);
    else fputs(",\"grid_columns\":null", out);
    fprintf(out, ",\"warmup_frames\":%d,\"clicks_per_phase\":%d", options->warmup_frames, options->clicks);
    json_field_double(out, "refresh_hz", options->refresh_hz > 0 ? options->refresh_hz : NAN);
    json_field_double(out, "textures_ms", report->textures_ms);
    json_field_double(out, "model_ms", report->model_ms);
    fputs(",\"phases\":[", out);
    for (int i = 0; i < report->phase_count; i++) {
        const PhaseRecord *phase = &report->phases[i];
        PhaseFigures f = phase_figures(report, phase);
        fputs(i ? ",\n{" : "\n{", out);
        fputs("\"px_per_frame\":", out);
        json_double(out, phase->spec.px_per_frame);
        fprintf(out, ",\"frames\":%d,\"frames_seen\":%d,\"frames_painted\":%d,\"frames_presented\":%d",
                f.frames, f.frames_seen, f.frames_painted, f.frames_presented);
        fprintf(out, ",\"interval_source\":\"%s\"", f.interval_source);
        json_field_double(out, "refresh_interval_ms", f.refresh_interval_ms);
        fprintf(out, ",\"refresh_source\":\"%s\"", f.refresh_source);
        json_field_double(out, "compositor_refresh_ms", f.compositor_refresh_ms);
        json_field_double(out, "late_threshold_ms", f.late_threshold_ms);
        fprintf(out, ",\"late_frames\":%d", f.late_frames);
        json_summary(out, "tick_interval_ms", f.tick_intervals);
        json_summary(out, "presentation_interval_ms", f.presentation_intervals);
        json_summary(out, "main_thread_busy_ms", f.busy);
        json_summary(out, "update_to_after_paint_ms", f.phases_wall);
        json_field_double(out, "main_thread_cpu_ms", f.main_thread_cpu_ms);
        json_field_double(out, "process_cpu_ms", f.process_cpu_ms);
        json_field_double(out, "wall_ms", f.wall_ms);
        json_field_double(out, "content_moved_px", f.content_moved_px);
        json_summary(out, "moved_px", f.moved);
        fprintf(out, ",\"scroll_mismatches\":%d,\"wraps\":%d", f.scroll_mismatches, phase->wraps);
        fprintf(out, ",\"binds\":%ld,\"rows_created\":%ld", f.binds_total, f.rows_created);
        json_summary(out, "binds_per_frame", f.binds);
        fprintf(out, ",\"clicks_painted\":%d", f.clicks_painted);
        json_summary(out, "latency_frames", f.latency_frames);
        json_summary(out, "latency_event_to_paint_ms", f.latency_paint);
        json_summary(out, "latency_event_to_presentation_ms", f.latency_presentation);
        fputs(",\"clicks\":[", out);
        for (int j = 0; j < phase->click_count; j++) {
            if (j) fputc(',', out);
            json_click(out, report, &phase->clicks[j]);
        }
        fputs("],\n\"samples\":{", out);
        for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
            fprintf(out, "%s\"%s\":", c ? ",\n" : "\n", columns[c].name);
            json_column(out, report, phase, columns[c].column);
        }
        fputs("}}", out);
    }
    fputs("]}\n", out);
}

void report_print_summary(const Report *report, FILE *out) {
    for (int i = 0; i < report->phase_count; i++) {
        const PhaseRecord *phase = &report->phases[i];
        PhaseFigures f = phase_figures(report, phase);
        fprintf(out,
                "gtk-feed-peer: phase %d (%g px/frame): %d frames, %d painted, %d presented, %d late (> %.1f ms, %s intervals); "
                "main-thread busy p50 %.2f p99 %.2f max %.2f ms; %.1f binds/frame p99 %.0f; moved %.0f px (%d mismatches); "
                "latency %.0f frames, %.1f ms to paint, %.1f ms to presentation\n",
                i + 1, phase->spec.px_per_frame, f.frames, f.frames_painted, f.frames_presented, f.late_frames,
                f.late_threshold_ms, f.interval_source, f.busy.p50, f.busy.p99, f.busy.max, f.binds.mean, f.binds.p99,
                f.content_moved_px, f.scroll_mismatches, f.latency_frames.p50, f.latency_paint.p50, f.latency_presentation.p50);
    }
}
