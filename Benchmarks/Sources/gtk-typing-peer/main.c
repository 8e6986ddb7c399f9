// gtk-typing-peer: the GTK4 peer of Strata's benchmark M13 typing_latency. A GtkTextView holding
// the document, in a GtkScrolledWindow filling a 1280x800 window, the cursor at the end of its
// first line, written as a GTK developer would write a note editor: word-char wrapping, DejaVu
// Sans 14px, 8 px margins (Strata's TextView's inset), GTK's default (cairo) renderer under
// headless sway.
//
// It is timed as typing-subject times Strata's TextView (TypingLatency.swift defines the figures):
// - delivered: a capture-phase key controller on the window sees the key press first;
// - the frame showing the glyph: GTK inserts the text while handling the key, and the next frame
//   it paints lays the cursor's line out again and draws it (GtkTextView validates the visible
//   lines before it snapshots), so the first commit after the buffer changed shows the glyph.
//   Before that frame paints ("before-paint"), the peer asks for a frame callback of its own on
//   the window's wl_surface, which GTK's commit in the same frame carries; its done is the
//   presentation. "after-paint" follows the commit: the main thread's CPU time is read there.
//
// Output on stdout: "ready", one "key=" line per key, "first_line=", "end"; "error=" on failure.
// Exit status 0; 2 for bad arguments.
#include <gdk/wayland/gdkwayland.h>
#include <gtk/gtk.h>
#include <wayland-client.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_KEYS = 10000 };

typedef struct {
    int64_t delivered, delivered_cpu;
    int64_t committed, committed_cpu;
    uint32_t presented_ms;
    int64_t presented_arrival;
    gboolean changed, painted, presented;
} Key;

typedef struct {
    int expected;
    Key keys[MAX_KEYS];
    int delivered;          // keys delivered so far
    int first_unpainted;    // keys before it have been committed
    GtkWidget *window, *view;
    GtkTextBuffer *buffer;
    GdkFrameClock *clock;
    struct wl_surface *surface;
    gboolean ready, callback_asked;
    int frames_done;        // frame callbacks of our own answered (one is asked before "ready")
    GMainLoop *loop;
} Peer;

static int64_t clock_ns(clockid_t clock) {
    struct timespec time;
    clock_gettime(clock, &time);
    return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
}

static gboolean all_presented(Peer *peer) {
    if (peer->delivered < peer->expected) return FALSE;
    for (int i = 0; i < peer->expected; i++) if (!peer->keys[i].presented) return FALSE;
    return TRUE;
}

typedef struct { Peer *peer; int from, to; } CallbackKeys;

static void frame_done(void *data, struct wl_callback *callback, uint32_t milliseconds) {
    CallbackKeys *keys = data;
    Peer *peer = keys->peer;
    int64_t arrival = clock_ns(CLOCK_MONOTONIC);
    for (int i = keys->from; i < keys->to; i++) {
        peer->keys[i].presented_ms = milliseconds;
        peer->keys[i].presented_arrival = arrival;
        peer->keys[i].presented = TRUE;
    }
    peer->frames_done++;
    wl_callback_destroy(callback);
    g_free(keys);
    if (peer->ready && all_presented(peer)) g_main_loop_quit(peer->loop);
}

static const struct wl_callback_listener frame_listener = { frame_done };

/// Asks for a frame callback on the window's surface; GTK's next commit carries it.
static void ask_frame_callback(Peer *peer, int from, int to) {
    CallbackKeys *keys = g_new0(CallbackKeys, 1);
    *keys = (CallbackKeys){ peer, from, to };
    struct wl_callback *callback = wl_surface_frame(peer->surface);
    wl_callback_add_listener(callback, &frame_listener, keys);
}

static gboolean key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer data) {
    Peer *peer = data;
    if (!peer->ready || peer->delivered >= peer->expected) return FALSE;
    Key *key = &peer->keys[peer->delivered++];
    key->delivered = clock_ns(CLOCK_MONOTONIC);
    key->delivered_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    return FALSE;  // on to the text view
}

static void buffer_changed(GtkTextBuffer *buffer, gpointer data) {
    Peer *peer = data;
    if (peer->ready && peer->delivered > 0) peer->keys[peer->delivered - 1].changed = TRUE;
}

static void before_paint(GdkFrameClock *clock, gpointer data) {
    Peer *peer = data;
    if (!peer->ready || peer->first_unpainted >= peer->delivered || peer->callback_asked) return;
    if (!peer->keys[peer->delivered - 1].changed) return;
    ask_frame_callback(peer, peer->first_unpainted, peer->delivered);
    peer->callback_asked = TRUE;
}

static void after_paint(GdkFrameClock *clock, gpointer data) {
    Peer *peer = data;
    if (!peer->callback_asked) return;
    int64_t now = clock_ns(CLOCK_MONOTONIC), cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int i = peer->first_unpainted; i < peer->delivered; i++) {
        peer->keys[i].committed = now;
        peer->keys[i].committed_cpu = cpu;
        peer->keys[i].painted = TRUE;
    }
    peer->first_unpainted = peer->delivered;
    peer->callback_asked = FALSE;
}

static gboolean announce_ready(gpointer data) {
    Peer *peer = data;
    peer->ready = TRUE;
    printf("ready\n");
    fflush(stdout);
    return G_SOURCE_REMOVE;
}

/// Ready once the window is active (it has the keyboard) and a frame of ours has been presented.
static gboolean check_ready(gpointer data) {
    Peer *peer = data;
    if (peer->surface == NULL) {
        GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(peer->window));
        if (surface == NULL || !GDK_IS_WAYLAND_SURFACE(surface)) return G_SOURCE_CONTINUE;
        peer->surface = gdk_wayland_surface_get_wl_surface(surface);
        peer->clock = gdk_surface_get_frame_clock(surface);
        g_signal_connect(peer->clock, "before-paint", G_CALLBACK(before_paint), peer);
        g_signal_connect(peer->clock, "after-paint", G_CALLBACK(after_paint), peer);
        ask_frame_callback(peer, 0, 0);
        gtk_widget_queue_draw(peer->view);
        return G_SOURCE_CONTINUE;
    }
    if (peer->frames_done == 0 || !gtk_window_is_active(GTK_WINDOW(peer->window)) || !gtk_widget_has_focus(peer->view)) {
        return G_SOURCE_CONTINUE;
    }
    // A second later, as typing-subject waits, so the first key finds the cursor blinking on
    // both sides.
    g_timeout_add(1000, announce_ready, peer);
    return G_SOURCE_REMOVE;
}

static gboolean timed_out(gpointer data) {
    Peer *peer = data;
    printf("error=timed out with %d of %d keys delivered\n", peer->delivered, peer->expected);
    g_main_loop_quit(peer->loop);
    return G_SOURCE_REMOVE;
}

static char *read_document(const char *path) {
    gchar *text = NULL;
    gsize length = 0;
    GError *error = NULL;
    if (!g_file_get_contents(path, &text, &length, &error)) {
        printf("error=cannot read %s: %s\nend\n", path, error->message);
        exit(1);
    }
    if (!g_utf8_validate(text, (gssize)length, NULL)) {
        printf("error=%s is not UTF-8\nend\n", path);
        exit(1);
    }
    return text;
}

int main(int argc, char **argv) {
    const char *document = NULL;
    long keys = 0, timeout = 120;
    for (int i = 1; i + 1 < argc; i += 2) {
        char *end = NULL;
        if (strcmp(argv[i], "--document") == 0) document = argv[i + 1];
        else if (strcmp(argv[i], "--keys") == 0) keys = strtol(argv[i + 1], &end, 10);
        else if (strcmp(argv[i], "--timeout") == 0) timeout = strtol(argv[i + 1], &end, 10);
        else { fprintf(stderr, "gtk-typing-peer: unknown argument %s\n", argv[i]); return 2; }
        if (end != NULL && *end != '\0') { fprintf(stderr, "gtk-typing-peer: %s needs a number\n", argv[i]); return 2; }
    }
    if (document == NULL || keys < 1 || keys > MAX_KEYS || timeout < 1 || timeout > 3600 || (argc - 1) % 2 != 0) {
        fprintf(stderr, "usage: gtk-typing-peer --document PATH --keys 1...%d [--timeout SECONDS]\n", MAX_KEYS);
        return 2;
    }
    // A stuck main loop cannot run the timeout below; the alarm's default action ends the process.
    alarm((unsigned)timeout + 10);
    setvbuf(stdout, NULL, _IOLBF, 0);
    gtk_init();
    if (!GDK_IS_WAYLAND_DISPLAY(gdk_display_get_default())) {
        printf("error=not on Wayland\nend\n");
        return 1;
    }
    static Peer peer;
    peer.expected = (int)keys;
    peer.loop = g_main_loop_new(NULL, FALSE);

    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_data(css, "textview { font: 14px \"DejaVu Sans\"; color: #111827; }", -1);
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    peer.window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(peer.window), "GTK4 · M13 typing");
    gtk_window_set_default_size(GTK_WINDOW(peer.window), 1280, 800);
    GtkWidget *scroller = gtk_scrolled_window_new();
    peer.view = gtk_text_view_new();
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(peer.view), GTK_WRAP_WORD_CHAR);
    gtk_text_view_set_left_margin(GTK_TEXT_VIEW(peer.view), 8);
    gtk_text_view_set_right_margin(GTK_TEXT_VIEW(peer.view), 8);
    gtk_text_view_set_top_margin(GTK_TEXT_VIEW(peer.view), 8);
    gtk_text_view_set_bottom_margin(GTK_TEXT_VIEW(peer.view), 8);
    peer.buffer = gtk_text_view_get_buffer(GTK_TEXT_VIEW(peer.view));
    char *text = read_document(document);
    gtk_text_buffer_set_text(peer.buffer, text, -1);
    g_free(text);
    GtkTextIter cursor;
    gtk_text_buffer_get_start_iter(peer.buffer, &cursor);
    gtk_text_iter_forward_to_line_end(&cursor);
    gtk_text_buffer_place_cursor(peer.buffer, &cursor);
    g_signal_connect(peer.buffer, "changed", G_CALLBACK(buffer_changed), &peer);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), peer.view);
    gtk_window_set_child(GTK_WINDOW(peer.window), scroller);
    GtkEventController *keys_controller = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(keys_controller, GTK_PHASE_CAPTURE);
    g_signal_connect(keys_controller, "key-pressed", G_CALLBACK(key_pressed), &peer);
    gtk_widget_add_controller(peer.window, keys_controller);
    g_signal_connect_swapped(peer.window, "close-request", G_CALLBACK(g_main_loop_quit), peer.loop);
    gtk_window_present(GTK_WINDOW(peer.window));
    gtk_widget_grab_focus(peer.view);
    g_timeout_add(20, check_ready, &peer);
    g_timeout_add_seconds((guint)timeout, timed_out, &peer);
    g_main_loop_run(peer.loop);

    for (int i = 0; i < peer.delivered; i++) {
        const Key *key = &peer.keys[i];
        if (!key->presented || !key->painted) continue;
        printf("key=%d delivered_ns=%lld commit_ns=%lld presented_ms=%u presented_arrival_ns=%lld main_cpu_ns=%lld\n", i,
               (long long)key->delivered, (long long)key->committed, key->presented_ms, (long long)key->presented_arrival,
               (long long)(key->committed_cpu - key->delivered_cpu));
    }
    GtkTextIter start, end;
    gtk_text_buffer_get_start_iter(peer.buffer, &start);
    end = start;
    gtk_text_iter_forward_to_line_end(&end);
    char *line = gtk_text_buffer_get_text(peer.buffer, &start, &end, FALSE);
    printf("first_line=%s\nend\n", line);
    g_free(line);
    return 0;
}
