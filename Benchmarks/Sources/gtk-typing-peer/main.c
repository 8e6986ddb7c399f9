// gtk-typing-peer: the GTK4 peer of Strata's benchmark M13 typing_latency. A GtkTextView holding
// the document, in a GtkScrolledWindow filling a 1280x800 window, the cursor at the end of its
// first line, written as a GTK developer would write a note editor: word-char wrapping, DejaVu
// Sans 14px, 8 px margins (Strata's TextView's inset), GTK's default (cairo) renderer under
// headless sway.
//
// It is timed as typing-subject times Strata's TextView, through gtk-peer-probe:
// - delivered: a capture-phase key controller on the window sees the key press first;
// - changed: GTK inserts the text while handling the key, and the next frame it paints lays the
//   cursor's line out again and draws it (GtkTextView validates the visible lines before it
//   snapshots), so the first commit after the buffer changed shows the glyph.
//
// Output on stdout: "ready", one "event=" line per key, "first_line=", "end"; "error=" on failure.
// Exit status 0; 2 for bad arguments.
#include "gtk_peer_probe.h"
#include <gdk/wayland/gdkwayland.h>
#include <gtk/gtk.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gboolean key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer data) {
    probe_delivered(data);
    return FALSE;  // on to the text view
}

static void buffer_changed(GtkTextBuffer *buffer, gpointer data) {
    probe_changed(data);
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
    if (document == NULL || keys < 1 || keys > PROBE_MAX_EVENTS || timeout < 1 || timeout > 3600 || (argc - 1) % 2 != 0) {
        fprintf(stderr, "usage: gtk-typing-peer --document PATH --keys 1...%d [--timeout SECONDS]\n", PROBE_MAX_EVENTS);
        return 2;
    }
    static Probe probe;
    if (!probe_init(&probe, timeout)) return 1;

    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_data(css, "textview { font: 14px \"DejaVu Sans\"; color: #111827; }", -1);
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "GTK4 · M13 typing");
    gtk_window_set_default_size(GTK_WINDOW(window), 1280, 800);
    GtkWidget *scroller = gtk_scrolled_window_new();
    GtkWidget *view = gtk_text_view_new();
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(view), GTK_WRAP_WORD_CHAR);
    gtk_text_view_set_left_margin(GTK_TEXT_VIEW(view), 8);
    gtk_text_view_set_right_margin(GTK_TEXT_VIEW(view), 8);
    gtk_text_view_set_top_margin(GTK_TEXT_VIEW(view), 8);
    gtk_text_view_set_bottom_margin(GTK_TEXT_VIEW(view), 8);
    GtkTextBuffer *buffer = gtk_text_view_get_buffer(GTK_TEXT_VIEW(view));
    char *text = read_document(document);
    gtk_text_buffer_set_text(buffer, text, -1);
    g_free(text);
    GtkTextIter cursor;
    gtk_text_buffer_get_start_iter(buffer, &cursor);
    gtk_text_iter_forward_to_line_end(&cursor);
    gtk_text_buffer_place_cursor(buffer, &cursor);
    g_signal_connect(buffer, "changed", G_CALLBACK(buffer_changed), &probe);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), view);
    gtk_window_set_child(GTK_WINDOW(window), scroller);
    GtkEventController *keys_controller = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(keys_controller, GTK_PHASE_CAPTURE);
    g_signal_connect(keys_controller, "key-pressed", G_CALLBACK(key_pressed), &probe);
    gtk_widget_add_controller(window, keys_controller);
    g_signal_connect_swapped(window, "close-request", G_CALLBACK(g_main_loop_quit), probe.loop);
    gtk_window_present(GTK_WINDOW(window));
    gtk_widget_grab_focus(view);
    probe_start(&probe, (int)keys, window, view, timeout);
    g_main_loop_run(probe.loop);

    probe_print(&probe);
    GtkTextIter start, end;
    gtk_text_buffer_get_start_iter(buffer, &start);
    end = start;
    gtk_text_iter_forward_to_line_end(&end);
    char *line = gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
    printf("first_line=%s\nend\n", line);
    g_free(line);
    return 0;
}
