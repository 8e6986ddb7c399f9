// gtk-click-peer: the GTK4 peer of Strata's benchmark M11 input_latency. A GtkButton reading
// "Clicked 0 times" in the middle of an undecorated 1280x800 window, whose "clicked" handler sets
// its label to the new count, as the gallery's counter button does in Strata. GTK's default
// (cairo) renderer under headless sway.
//
// It is timed as click-subject times Strata's button, through gtk-peer-probe:
// - delivered: a capture-phase click gesture on the window sees the button press first;
// - changed: the label is set in "clicked" (on the release), and the next frame GTK paints
//   shows it.
//
// Output on stdout: "ready x=X y=Y" (the button's middle in surface coordinates), one "event="
// line per click, "clicks=N", "end"; "error=" on failure. Exit status 0; 2 for bad arguments.
#include "gtk_peer_probe.h"
#include <gdk/wayland/gdkwayland.h>
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static GtkWidget *button;
static int clicks;

static void pressed(GtkGestureClick *gesture, int count, double x, double y, gpointer data) {
    probe_delivered(data);
}

static void clicked(GtkButton *sender, gpointer data) {
    char label[64];
    clicks++;
    snprintf(label, sizeof label, "Clicked %d time%s", clicks, clicks == 1 ? "" : "s");
    gtk_button_set_label(sender, label);
    probe_changed(data);
}

static void button_middle(Probe *probe) {
    graphene_rect_t bounds;
    double dx = 0, dy = 0;
    if (!gtk_widget_compute_bounds(button, probe->window, &bounds)) {
        printf(" error=no bounds");
        return;
    }
    // Widget coordinates are surface coordinates less the surface transform (its CSD margins).
    gtk_native_get_surface_transform(GTK_NATIVE(probe->window), &dx, &dy);
    printf(" x=%d y=%d", (int)(bounds.origin.x + bounds.size.width / 2 + dx), (int)(bounds.origin.y + bounds.size.height / 2 + dy));
}

int main(int argc, char **argv) {
    long count = 0, timeout = 120;
    for (int i = 1; i + 1 < argc; i += 2) {
        char *end = NULL;
        if (strcmp(argv[i], "--clicks") == 0) count = strtol(argv[i + 1], &end, 10);
        else if (strcmp(argv[i], "--timeout") == 0) timeout = strtol(argv[i + 1], &end, 10);
        else { fprintf(stderr, "gtk-click-peer: unknown argument %s\n", argv[i]); return 2; }
        if (end == NULL || *end != '\0') { fprintf(stderr, "gtk-click-peer: %s needs a number\n", argv[i]); return 2; }
    }
    if (count < 1 || count > PROBE_MAX_EVENTS || timeout < 1 || timeout > 3600 || (argc - 1) % 2 != 0) {
        fprintf(stderr, "usage: gtk-click-peer --clicks 1...%d [--timeout SECONDS]\n", PROBE_MAX_EVENTS);
        return 2;
    }
    static Probe probe;
    if (!probe_init(&probe, timeout)) return 1;
    probe.ready_fields = button_middle;

    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "GTK4 · M11 clicks");
    gtk_window_set_decorated(GTK_WINDOW(window), FALSE);
    gtk_window_set_default_size(GTK_WINDOW(window), 1280, 800);
    button = gtk_button_new_with_label("Clicked 0 times");
    gtk_widget_set_halign(button, GTK_ALIGN_CENTER);
    gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
    g_signal_connect(button, "clicked", G_CALLBACK(clicked), &probe);
    gtk_window_set_child(GTK_WINDOW(window), button);
    GtkGesture *gesture = gtk_gesture_click_new();
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(gesture), GTK_PHASE_CAPTURE);
    g_signal_connect(gesture, "pressed", G_CALLBACK(pressed), &probe);
    gtk_widget_add_controller(window, GTK_EVENT_CONTROLLER(gesture));
    g_signal_connect_swapped(window, "close-request", G_CALLBACK(g_main_loop_quit), probe.loop);
    gtk_window_present(GTK_WINDOW(window));
    probe_start(&probe, (int)count, window, NULL, timeout);
    g_main_loop_run(probe.loop);

    probe_print(&probe);
    printf("clicks=%d\nend\n", clicks);
    return 0;
}
