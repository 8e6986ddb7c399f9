#!/usr/bin/python3
"""M9's assistive technology: a pyatspi client (the library Orca uses) that does what Orca does
while an app's list scrolls, on the bus named by DBUS_SESSION_BUS_ADDRESS.

    orca_like_listener.py APP DIRECTORY

It switches org.a11y.Status.IsEnabled on (as Orca does at its start), prints {"enabled": true},
registers for the events Orca registers for, and waits for APP among the desktop's applications
and for APP to write DIRECTORY/settled (its list laid out where the scroll starts). Then it walks
APP's whole tree, so that the app has seen every node and tells its changes, and writes "ready"
to DIRECTORY/ready. From then on each event's handler reads the source's name, role and states,
as Orca's event manager does before it decides whether to speak. On SIGTERM it prints one JSON
line of counts and exits. A failure before "ready" is written to DIRECTORY/ready as
"error: …", so the app stops waiting at once.
"""
import json
import os
import resource
import signal
import sys
import time

# Orca's listeners (its default script's, and the event manager's), by the prefix pyatspi takes.
EVENTS = [
    "focus:",
    "object:state-changed",
    "object:children-changed",
    "object:property-change",
    "object:text-changed",
    "object:text-caret-moved",
    "object:text-selection-changed",
    "object:text-attributes-changed",
    "object:selection-changed",
    "object:active-descendant-changed",
    "object:value-changed",
    "object:attributes-changed",
    "window:activate",
    "window:deactivate",
    "window:create",
    "window:destroy",
    "document:load-complete",
]
# The app can take a while to register behind a busy compositor: a way out, not a measure.
APP_WAIT_SECONDS = 60


def say(**fields):
    print(json.dumps(fields), flush=True)


def write_file(path, text):
    # Written whole and renamed, so the app never reads half of it.
    with open(path + ".part", "w") as file:
        file.write(text)
    os.rename(path + ".part", path)


def enable_status():
    from gi.repository import Gio, GLib
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties", "Set",
                  GLib.Variant("(ssv)", ("org.a11y.Status", "IsEnabled", GLib.Variant("b", True))),
                  None, Gio.DBusCallFlags.NONE, 30000, None)


def find_app(pyatspi, name, settled_file):
    deadline = time.monotonic() + APP_WAIT_SECONDS
    while True:
        if not os.path.exists(settled_file):
            if time.monotonic() > deadline:
                raise RuntimeError("%s did not settle within %d s" % (name, APP_WAIT_SECONDS))
            time.sleep(0.05)
            continue
        desktop = pyatspi.Registry.getDesktop(0)
        names = []
        for index in range(desktop.childCount):
            app = desktop.getChildAtIndex(index)
            if app is not None:
                if app.name == name:
                    return app
                names.append(app.name)
        if time.monotonic() > deadline:
            raise RuntimeError("no application named %s within %d s among %s" % (name, APP_WAIT_SECONDS, names))
        time.sleep(0.1)


def walk(node, counts, depth=0):
    """Reads every node as a screen reader's review does: name, role, states, children."""
    counts["nodes"] += 1
    role = node.getRoleName()
    node.name
    node.getState()
    if role in ("list", "table", "tree table"):
        counts["lists"] += 1
        counts["rows_seen"] += node.childCount
    if depth < 40:
        for index in range(node.childCount):
            child = node.getChildAtIndex(index)
            if child is not None:
                walk(child, counts, depth + 1)


def main(arguments):
    app_name, directory = arguments
    ready_file = os.path.join(directory, "ready")
    try:
        enable_status()
        say(enabled=True)
        import pyatspi
        from gi.repository import GLib
        heard = {}
        reads = {"done": 0, "failed": 0}

        def hear(event):
            kind = ":".join(event.type.split(":")[:2])
            heard[kind] = heard.get(kind, 0) + 1
            try:
                source = event.source
                if source is not None:
                    source.name
                    source.getRole()
                    source.getState()
                reads["done"] += 1
            except Exception:
                # The source left before it was read, as Orca finds it at times: counted, not fatal.
                reads["failed"] += 1

        for kind in EVENTS:
            pyatspi.Registry.registerEventListener(hear, kind)
        app = find_app(pyatspi, app_name, os.path.join(directory, "settled"))
        counts = {"nodes": 0, "lists": 0, "rows_seen": 0}
        walk(app, counts)
        if counts["lists"] == 0:
            raise RuntimeError("no list in %s's tree of %d nodes" % (app_name, counts["nodes"]))
        write_file(ready_file, "ready")
    except Exception as error:
        write_file(ready_file, "error: %s" % error)
        say(error=str(error))
        sys.exit(1)

    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, lambda: pyatspi.Registry.stop() or False)
    pyatspi.Registry.start()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    say(walked=counts, events=heard, reads=reads["done"], failed_reads=reads["failed"],
        cpu_ms=(usage.ru_utime + usage.ru_stime) * 1000)


if __name__ == "__main__":
    main(sys.argv[1:])
