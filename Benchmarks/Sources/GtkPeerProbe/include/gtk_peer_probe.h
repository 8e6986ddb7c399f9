// The GTK4 peers' half of the input-latency metrics (M11, M13), as PresentationProbe is
// Strata's: for each input event, when it was delivered, when the first frame showing its effect
// was committed, and when the compositor presented that frame (TypingLatency.swift and
// ClickLatency.swift define the figures; InputLatency.swift reads what this prints).
//
// GTK applies a change while handling the event, and the next frame it paints shows it: the
// peer calls probe_delivered when the event arrives and probe_changed when the widget changed.
// Before that frame paints ("before-paint"), the probe asks for a frame callback of its own on
// the window's wl_surface, which GTK's commit in the same frame carries; its done is the
// presentation. "after-paint" follows the commit: the main thread's CPU time is read there.
#pragma once
#include <gtk/gtk.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

enum { PROBE_MAX_EVENTS = 10000 };

typedef struct {
    int64_t delivered, delivered_cpu;
    int64_t committed, committed_cpu;
    uint32_t presented_ms;
    int64_t presented_arrival;
    gboolean changed, painted, presented;
} ProbeEvent;

typedef struct Probe {
    int expected;
    ProbeEvent events[PROBE_MAX_EVENTS];
    int delivered;          // events delivered so far
    int first_unpainted;    // events before it have been committed
    GtkWidget *window;
    GtkWidget *focus;       // must have the focus before "ready"; NULL for none
    struct wl_surface *surface;
    GdkFrameClock *clock;
    gboolean ready, callback_asked;
    int frames_done;        // frame callbacks of our own answered (one is asked before "ready")
    GMainLoop *loop;
    // Called right before "ready" is printed, to print what the driver needs to know first
    // (the fields of the ready line, without its newline).
    void (*ready_fields)(struct Probe *probe);
} Probe;

// The peers' start-up: a hard deadline of `timeout` s plus 10 (a stuck main loop cannot run
// the probe's own timeout; the alarm's default action ends the process), line-buffered output,
// GTK on Wayland and the probe's main loop. False, with "error=" and "end" printed, when GTK is
// not on Wayland.
bool probe_init(Probe *probe, long timeout);
// Starts watching `window` once it is shown; prints "ready" a second after a frame of ours was
// presented and, if `focus` is given, the window is active with `focus` focused. Fails after `timeout` s.
void probe_start(Probe *probe, int expected, GtkWidget *window, GtkWidget *focus, long timeout);
// An input event arrived now (ignored before "ready" and beyond `expected`).
void probe_delivered(Probe *probe);
// The latest delivered event changed what the window shows.
void probe_changed(Probe *probe);
// Prints one "event=" line per presented event.
void probe_print(const Probe *probe);
int64_t probe_clock_ns(clockid_t clock);
