// gtk-gallery-peer: the GTK4 peer of Strata's benchmark M6 memory, per window. `--windows N`
// windows of 560x600, each holding the controls of Strata's gallery example built from GTK's own
// widgets and laid out the same way, top to bottom: a bold title; three GtkButtons ("Clicked 0
// times", "Reset", a disabled one); a GtkSwitch with its label, a GtkScale with its value; a key
// label; a hover card and a scroll pad (boxes with a label and a motion or scroll controller); a
// name GtkEntry, a password GtkEntry and a search GtkEntry; a selectable GtkLabel with markup
// links; a GtkTextView in a GtkScrolledWindow. The handlers update the labels as the gallery's do,
// so the widgets carry the same controllers, though nothing clicks them here.
//
// GTK's cairo renderer (no GPU here) unless GSK_RENDERER is set, on Wayland, and without the
// accessibility bus (Strata has none), as the other GTK4 peers; the driver reads the process's
// memory from /proc, the same way as for Strata's subject.
//
// Once every window has painted a frame it lets them settle for 2 s and prints "ready windows=N
// renderer=NAME", then stays at rest until the driver ends it with SIGTERM. "error=" on failure
// (exit status 1), exit status 2 for bad arguments.
#include <gdk/wayland/gdkwayland.h>
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SETTLE_MS = 2000, MAX_WINDOWS = 50 };

static GtkWidget *windows[MAX_WINDOWS];
static int window_count, painted_count;

// The widgets a window's handlers update.
typedef struct {
    GtkWidget *counter, *toggle_label, *scale_label, *key_label, *hover_label, *pad_label;
    int clicks, scroll_steps;
} Gallery;

static void clicked(GtkButton *button, Gallery *gallery) {
    char text[64];
    gallery->clicks++;
    snprintf(text, sizeof text, "Clicked %d time%s", gallery->clicks, gallery->clicks == 1 ? "" : "s");
    gtk_button_set_label(button, text);
}

static void reset(GtkButton *button, Gallery *gallery) {
    gallery->clicks = 0;
    gtk_button_set_label(GTK_BUTTON(gallery->counter), "Clicked 0 times");
}

static void toggled(GObject *toggle, GParamSpec *spec, Gallery *gallery) {
    gtk_label_set_text(GTK_LABEL(gallery->toggle_label), gtk_switch_get_active(GTK_SWITCH(toggle)) ? "On" : "Off");
}

static void slid(GtkRange *range, Gallery *gallery) {
    char text[16];
    snprintf(text, sizeof text, "%d %%", (int)(gtk_range_get_value(range) * 100 + 0.5));
    gtk_label_set_text(GTK_LABEL(gallery->scale_label), text);
}

static gboolean key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, Gallery *gallery) {
    char text[96];
    const char *name = gdk_keyval_name(keyval);
    snprintf(text, sizeof text, "Last key: %s", name ? name : "?");
    gtk_label_set_text(GTK_LABEL(gallery->key_label), text);
    return FALSE;
}

static void hover_entered(GtkEventControllerMotion *motion, double x, double y, Gallery *gallery) {
    gtk_label_set_text(GTK_LABEL(gallery->hover_label), "The pointer is here");
}

static void hover_left(GtkEventControllerMotion *motion, Gallery *gallery) {
    gtk_label_set_text(GTK_LABEL(gallery->hover_label), "Hover over me");
}

static gboolean scrolled(GtkEventControllerScroll *scroll, double dx, double dy, Gallery *gallery) {
    char text[64];
    gallery->scroll_steps += (int)dy;
    snprintf(text, sizeof text, "Scroll here: %d steps", gallery->scroll_steps);
    gtk_label_set_text(GTK_LABEL(gallery->pad_label), text);
    return TRUE;
}

static GtkWidget *row(int spacing) {
    return gtk_box_new(GTK_ORIENTATION_HORIZONTAL, spacing);
}

// A rounded grey card with a centred caption, as the gallery's hover card and scroll pad.
static GtkWidget *card(const char *caption, GtkWidget **label) {
    GtkWidget *frame = gtk_frame_new(NULL);
    *label = gtk_label_new(caption);
    gtk_widget_set_hexpand(frame, TRUE);
    gtk_widget_set_size_request(frame, -1, 110);
    gtk_frame_set_child(GTK_FRAME(frame), *label);
    return frame;
}

static GtkWidget *entry(const char *placeholder, GtkInputPurpose purpose, GtkInputHints hints) {
    GtkWidget *field = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(field), placeholder);
    gtk_entry_set_input_purpose(GTK_ENTRY(field), purpose);
    gtk_entry_set_input_hints(GTK_ENTRY(field), hints);
    gtk_widget_set_hexpand(field, TRUE);
    return field;
}

static GtkWidget *gallery_window(int index) {
    Gallery *gallery = g_new0(Gallery, 1);
    char title[48];
    snprintf(title, sizeof title, "GTK4 gallery %d", index + 1);
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), title);
    gtk_window_set_default_size(GTK_WINDOW(window), 560, 600);
    g_object_set_data_full(G_OBJECT(window), "gallery", gallery, g_free);

    GtkWidget *column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_start(column, 20);
    gtk_widget_set_margin_end(column, 20);
    gtk_widget_set_margin_top(column, 14);
    gtk_widget_set_margin_bottom(column, 20);

    GtkWidget *heading = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(heading), "<span size=\"x-large\" weight=\"bold\">Controls</span>");
    gtk_label_set_xalign(GTK_LABEL(heading), 0);
    gtk_box_append(GTK_BOX(column), heading);

    GtkWidget *buttons = row(12);
    gallery->counter = gtk_button_new_with_label("Clicked 0 times");
    gtk_widget_set_size_request(gallery->counter, 180, 36);
    g_signal_connect(gallery->counter, "clicked", G_CALLBACK(clicked), gallery);
    GtkWidget *reset_button = gtk_button_new_with_label("Reset");
    g_signal_connect(reset_button, "clicked", G_CALLBACK(reset), gallery);
    GtkWidget *disabled = gtk_button_new_with_label("Disabled");
    gtk_widget_set_sensitive(disabled, FALSE);
    gtk_box_append(GTK_BOX(buttons), gallery->counter);
    gtk_box_append(GTK_BOX(buttons), reset_button);
    gtk_box_append(GTK_BOX(buttons), disabled);
    gtk_box_append(GTK_BOX(column), buttons);

    GtkWidget *values = row(12);
    GtkWidget *toggle = gtk_switch_new();
    gtk_widget_set_valign(toggle, GTK_ALIGN_CENTER);
    gallery->toggle_label = gtk_label_new("Off");
    g_signal_connect(toggle, "notify::active", G_CALLBACK(toggled), gallery);
    GtkWidget *scale = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 0.05);
    gtk_range_set_value(GTK_RANGE(scale), 0.5);
    gtk_scale_set_draw_value(GTK_SCALE(scale), FALSE);
    gtk_widget_set_hexpand(scale, TRUE);
    gallery->scale_label = gtk_label_new("50 %");
    g_signal_connect(scale, "value-changed", G_CALLBACK(slid), gallery);
    gtk_box_append(GTK_BOX(values), toggle);
    gtk_box_append(GTK_BOX(values), gallery->toggle_label);
    gtk_box_append(GTK_BOX(values), scale);
    gtk_box_append(GTK_BOX(values), gallery->scale_label);
    gtk_box_append(GTK_BOX(column), values);

    GtkWidget *key_frame = gtk_frame_new(NULL);
    gallery->key_label = gtk_label_new("Press a key");
    gtk_label_set_xalign(GTK_LABEL(gallery->key_label), 0);
    gtk_widget_set_margin_start(gallery->key_label, 10);
    gtk_widget_set_size_request(key_frame, -1, 40);
    gtk_frame_set_child(GTK_FRAME(key_frame), gallery->key_label);
    gtk_box_append(GTK_BOX(column), key_frame);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed), gallery);
    gtk_widget_add_controller(window, keys);

    GtkWidget *cards = row(20);
    GtkWidget *hover = card("Hover over me", &gallery->hover_label);
    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "enter", G_CALLBACK(hover_entered), gallery);
    g_signal_connect(motion, "leave", G_CALLBACK(hover_left), gallery);
    gtk_widget_add_controller(hover, motion);
    GtkWidget *pad = card("Scroll here: 0", &gallery->pad_label);
    GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    g_signal_connect(scroll, "scroll", G_CALLBACK(scrolled), gallery);
    gtk_widget_add_controller(pad, scroll);
    gtk_box_append(GTK_BOX(cards), hover);
    gtk_box_append(GTK_BOX(cards), pad);
    gtk_box_append(GTK_BOX(column), cards);

    GtkWidget *form = row(20);
    GtkWidget *password = entry("Password", GTK_INPUT_PURPOSE_PASSWORD, GTK_INPUT_HINT_PRIVATE);
    gtk_entry_set_visibility(GTK_ENTRY(password), FALSE);
    gtk_box_append(GTK_BOX(form), entry("Name", GTK_INPUT_PURPOSE_FREE_FORM, GTK_INPUT_HINT_NONE));
    gtk_box_append(GTK_BOX(form), password);
    gtk_box_append(GTK_BOX(form), entry("Search", GTK_INPUT_PURPOSE_FREE_FORM, GTK_INPUT_HINT_WORD_COMPLETION));
    gtk_box_append(GTK_BOX(column), form);

    GtkWidget *hint = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(hint), "<small>Tab moves the focus; Space or Enter presses. Read "
                                          "<a href=\"https://strata.dev\">https://strata.dev</a> or "
                                          "<a href=\"#gallery\">#gallery</a></small>");
    gtk_label_set_selectable(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_box_append(GTK_BOX(column), hint);

    GtkWidget *note = gtk_text_view_new();
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(note), GTK_WRAP_WORD_CHAR);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), note);
    gtk_scrolled_window_set_has_frame(GTK_SCROLLED_WINDOW(scroller), TRUE);
    gtk_widget_set_size_request(scroller, -1, 160);
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_box_append(GTK_BOX(column), scroller);

    gtk_window_set_child(GTK_WINDOW(window), column);
    return window;
}

static gboolean settled(gpointer data) {
    GtkNative *native = GTK_NATIVE(windows[0]);
    const char *renderer = G_OBJECT_TYPE_NAME(gtk_native_get_renderer(native));
    printf("ready windows=%d renderer=%s\n", window_count, renderer);
    return G_SOURCE_REMOVE;
}

// A window's first paint: when every window has painted one, the settle starts.
static void painted(GdkFrameClock *clock, gpointer data) {
    g_signal_handlers_disconnect_by_func(clock, G_CALLBACK(painted), data);
    if (++painted_count == window_count) g_timeout_add(SETTLE_MS, settled, NULL);
}

static void mapped(GtkWidget *window, gpointer data) {
    GdkFrameClock *clock = gdk_surface_get_frame_clock(gtk_native_get_surface(GTK_NATIVE(window)));
    g_signal_connect(clock, "after-paint", G_CALLBACK(painted), window);
}

int main(int argc, char **argv) {
    char *end = NULL;
    if (argc != 3 || strcmp(argv[1], "--windows") != 0) {
        fprintf(stderr, "usage: gtk-gallery-peer --windows 1...%d\n", MAX_WINDOWS);
        return 2;
    }
    long count = strtol(argv[2], &end, 10);
    if (end == NULL || *end != '\0' || count < 1 || count > MAX_WINDOWS) {
        fprintf(stderr, "usage: gtk-gallery-peer --windows 1...%d\n", MAX_WINDOWS);
        return 2;
    }
    // A driver that never ends it cannot leave it behind; the alarm's default action ends it.
    alarm(120);
    setvbuf(stdout, NULL, _IOLBF, 0);
    // Each only when unset, so a run can try another renderer.
    setenv("GSK_RENDERER", "cairo", 0);
    setenv("GDK_BACKEND", "wayland", 0);
    setenv("GTK_A11Y", "none", 0);
    gtk_init();
    if (!GDK_IS_WAYLAND_DISPLAY(gdk_display_get_default())) {
        printf("error=not on Wayland\n");
        return 1;
    }
    window_count = (int)count;
    for (int i = 0; i < window_count; i++) {
        windows[i] = gallery_window(i);
        g_signal_connect(windows[i], "map", G_CALLBACK(mapped), NULL);
        gtk_window_present(GTK_WINDOW(windows[i]));
    }
    // At rest until SIGTERM: the main loop answers the compositor as any app's would.
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
    return 0;
}
