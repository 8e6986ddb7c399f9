#include "gtk_peer_probe.h"
#include <gdk/wayland/gdkwayland.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

bool probe_init(Probe *probe, long timeout) {
    alarm((unsigned)timeout + 10);
    setvbuf(stdout, NULL, _IOLBF, 0);
    gtk_init();
    if (!GDK_IS_WAYLAND_DISPLAY(gdk_display_get_default())) {
        printf("error=not on Wayland\nend\n");
        return false;
    }
    probe->loop = g_main_loop_new(NULL, FALSE);
    return true;
}

int64_t probe_clock_ns(clockid_t clock) {
    struct timespec time;
    clock_gettime(clock, &time);
    return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
}

static gboolean all_presented(Probe *probe) {
    if (probe->delivered < probe->expected) return FALSE;
    for (int i = 0; i < probe->expected; i++) if (!probe->events[i].presented) return FALSE;
    return TRUE;
}

typedef struct { Probe *probe; int from, to; } CallbackEvents;

static void frame_done(void *data, struct wl_callback *callback, uint32_t milliseconds) {
    CallbackEvents *events = data;
    Probe *probe = events->probe;
    int64_t arrival = probe_clock_ns(CLOCK_MONOTONIC);
    for (int i = events->from; i < events->to; i++) {
        probe->events[i].presented_ms = milliseconds;
        probe->events[i].presented_arrival = arrival;
        probe->events[i].presented = TRUE;
    }
    probe->frames_done++;
    wl_callback_destroy(callback);
    g_free(events);
    if (probe->ready && all_presented(probe)) g_main_loop_quit(probe->loop);
}

static const struct wl_callback_listener frame_listener = { frame_done };

/// Asks for a frame callback on the window's surface; GTK's next commit carries it.
static void ask_frame_callback(Probe *probe, int from, int to) {
    CallbackEvents *events = g_new0(CallbackEvents, 1);
    *events = (CallbackEvents){ probe, from, to };
    struct wl_callback *callback = wl_surface_frame(probe->surface);
    wl_callback_add_listener(callback, &frame_listener, events);
}

void probe_delivered(Probe *probe) {
    if (!probe->ready || probe->delivered >= probe->expected) return;
    ProbeEvent *event = &probe->events[probe->delivered++];
    event->delivered = probe_clock_ns(CLOCK_MONOTONIC);
    event->delivered_cpu = probe_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void probe_changed(Probe *probe) {
    if (probe->ready && probe->delivered > 0) probe->events[probe->delivered - 1].changed = TRUE;
}

static void before_paint(GdkFrameClock *clock, gpointer data) {
    Probe *probe = data;
    if (!probe->ready || probe->first_unpainted >= probe->delivered || probe->callback_asked) return;
    if (!probe->events[probe->delivered - 1].changed) return;
    ask_frame_callback(probe, probe->first_unpainted, probe->delivered);
    probe->callback_asked = TRUE;
}

static void after_paint(GdkFrameClock *clock, gpointer data) {
    Probe *probe = data;
    if (!probe->callback_asked) return;
    int64_t now = probe_clock_ns(CLOCK_MONOTONIC), cpu = probe_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int i = probe->first_unpainted; i < probe->delivered; i++) {
        probe->events[i].committed = now;
        probe->events[i].committed_cpu = cpu;
        probe->events[i].painted = TRUE;
    }
    probe->first_unpainted = probe->delivered;
    probe->callback_asked = FALSE;
}

static gboolean announce_ready(gpointer data) {
    Probe *probe = data;
    probe->ready = TRUE;
    printf("ready");
    if (probe->ready_fields) probe->ready_fields(probe);
    printf("\n");
    fflush(stdout);
    return G_SOURCE_REMOVE;
}

/// Ready once a frame of ours has been presented and, when a focus widget was given, the window
/// is active (it has the keyboard) with the focus there. Clicks need no keyboard: the seat may
/// have none.
static gboolean check_ready(gpointer data) {
    Probe *probe = data;
    if (probe->surface == NULL) {
        GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(probe->window));
        if (surface == NULL || !GDK_IS_WAYLAND_SURFACE(surface)) return G_SOURCE_CONTINUE;
        probe->surface = gdk_wayland_surface_get_wl_surface(surface);
        probe->clock = gdk_surface_get_frame_clock(surface);
        g_signal_connect(probe->clock, "before-paint", G_CALLBACK(before_paint), probe);
        g_signal_connect(probe->clock, "after-paint", G_CALLBACK(after_paint), probe);
        ask_frame_callback(probe, 0, 0);
        gtk_widget_queue_draw(probe->window);
        return G_SOURCE_CONTINUE;
    }
    if (probe->frames_done == 0
        || (probe->focus != NULL && (!gtk_window_is_active(GTK_WINDOW(probe->window)) || !gtk_widget_has_focus(probe->focus)))) {
        return G_SOURCE_CONTINUE;
    }
    // A second later, as the Strata subjects wait, so the first event finds both sides at rest
    // (a text view's cursor blinking).
    g_timeout_add(1000, announce_ready, probe);
    return G_SOURCE_REMOVE;
}

static gboolean timed_out(gpointer data) {
    Probe *probe = data;
    printf("error=timed out with %d of %d events delivered\n", probe->delivered, probe->expected);
    g_main_loop_quit(probe->loop);
    return G_SOURCE_REMOVE;
}

void probe_start(Probe *probe, int expected, GtkWidget *window, GtkWidget *focus, long timeout) {
    probe->expected = expected;
    probe->window = window;
    probe->focus = focus;
    if (probe->loop == NULL) probe->loop = g_main_loop_new(NULL, FALSE);
    g_timeout_add(20, check_ready, probe);
    g_timeout_add_seconds((guint)timeout, timed_out, probe);
}

void probe_print(const Probe *probe) {
    for (int i = 0; i < probe->delivered; i++) {
        const ProbeEvent *event = &probe->events[i];
        if (!event->presented || !event->painted) continue;
        printf("event=%d delivered_ns=%lld commit_ns=%lld presented_ms=%u presented_arrival_ns=%lld main_cpu_ns=%lld\n", i,
               (long long)event->delivered, (long long)event->committed, event->presented_ms,
               (long long)event->presented_arrival, (long long)(event->committed_cpu - event->delivered_cpu));
    }
}
