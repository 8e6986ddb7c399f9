#!/usr/bin/python3
"""An assistive technology for the tests: pyatspi, the library Orca uses, on the bus named by
DBUS_SESSION_BUS_ADDRESS. Each command prints JSON lines; the Swift test checks them.

    tree APP                      the application's tree
    act APP ROLE NAME EVENTS…     does a node's first action, then prints events until one
                                  of each kind came
    set-value APP ROLE NAME VALUE sets a node's value and prints it read back
    insert APP ROLE NAME TEXT     inserts text at the end through EditableText, prints the text
    listen APP COUNT EVENTS…      prints "ready", then events until COUNT came
    follow APP ROLE NAME EVENTS…  prints "ready", then events until the node with that role
                                  and name (any name for *) gains the focus

Waiting ends with the events, or after a minute: a way out, not a measure of time.
"""
import json
import sys

import pyatspi
from gi.repository import GLib


def say(**fields):
    print(json.dumps(fields), flush=True)


def find_app(name):
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and app.name == name:
            return app
    say(error="no application named %s among %s" % (name, [desktop.getChildAtIndex(i).name for i in range(desktop.childCount)]))
    sys.exit(2)


def describe(node, depth=0):
    states = node.getState()
    entry = {
        "role": node.getRoleName(),
        "name": node.name,
        "states": sorted(pyatspi.stateToString(s) for s in states.getStates()),
        "interfaces": sorted(node.get_interfaces()),
    }
    if "Component" in entry["interfaces"]:
        e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        entry["extents"] = [e.x, e.y, e.width, e.height]
    if "Action" in entry["interfaces"]:
        action = node.queryAction()
        entry["actions"] = [action.getName(i) for i in range(action.nActions)]
    if "Value" in entry["interfaces"]:
        value = node.queryValue()
        entry["value"] = [value.currentValue, value.minimumValue, value.maximumValue]
    if "Text" in entry["interfaces"]:
        text = node.queryText()
        entry["text"] = text.getText(0, -1)
    if "Table" in entry["interfaces"]:
        entry["rows"] = node.queryTable().nRows
    attributes = dict(a.split(":", 1) for a in node.getAttributes() if ":" in a)
    if "posinset" in attributes:
        entry["posinset"] = int(attributes["posinset"])
    if depth < 40:
        entry["children"] = [describe(node.getChildAtIndex(i), depth + 1) for i in range(node.childCount)]
    return entry


def find(node, role, name):
    if node.getRoleName() == role and node.name == name:
        return node
    for index in range(node.childCount):
        found = find(node.getChildAtIndex(index), role, name)
        if found is not None:
            return found
    return None


def find_or_fail(app, role, name):
    node = find(app, role, name)
    if node is None:
        say(error="no %s named %r" % (role, name))
        sys.exit(3)
    return node


def collect(events, enough, then=None):
    """Prints events of the given types, after running `then`, until `enough(heard)` holds;
    `heard` holds each event's type, source role and name, and detail1."""
    heard = []

    def hear(event):
        source = event.source
        data = event.any_data if isinstance(event.any_data, (str, int, float)) else None
        role, name = (source.getRoleName(), source.name) if source else (None, None)
        heard.append((event.type, role, name, event.detail1))
        say(event=event.type, role=role, name=name, detail1=event.detail1, detail2=event.detail2, data=data)
        if enough(heard):
            pyatspi.Registry.stop()
    for kind in events:
        pyatspi.Registry.registerEventListener(hear, kind)

    def start():
        say(ready=True)
        if then is not None:
            then()
        return False
    GLib.idle_add(start)
    GLib.timeout_add_seconds(60, lambda: pyatspi.Registry.stop())
    pyatspi.Registry.start()


def main(arguments):
    command, app_name = arguments[0], arguments[1]
    app = find_app(app_name)
    if command == "tree":
        say(tree=describe(app))
    elif command == "act":
        node = find_or_fail(app, arguments[2], arguments[3])
        kinds = arguments[4:]
        collect(kinds, lambda heard: all(any(h[0].startswith(k) for h in heard) for k in kinds),
                then=lambda: say(done=node.queryAction().doAction(0)))
    elif command == "set-value":
        node = find_or_fail(app, arguments[2], arguments[3])
        value = node.queryValue()
        value.currentValue = float(arguments[4])
        say(value=value.currentValue)
    elif command == "insert":
        node = find_or_fail(app, arguments[2], arguments[3])
        text = node.queryText()
        editable = node.queryEditableText()
        say(done=editable.insertText(text.characterCount, arguments[4], len(arguments[4])))
        say(text=node.queryText().getText(0, -1))
    elif command == "listen":
        count = int(arguments[2])
        collect(arguments[3:], lambda heard: len(heard) >= count)
    elif command == "follow":
        role, name = arguments[2], arguments[3]
        collect(arguments[4:], lambda heard: heard[-1][0] == "object:state-changed:focused" and heard[-1][1] == role
                and name in ("*", heard[-1][2]) and heard[-1][3] == 1)
    else:
        say(error="unknown command %s" % command)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
