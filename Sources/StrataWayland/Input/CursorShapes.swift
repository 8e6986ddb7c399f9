import StrataCore
import WaylandClient

/// Strata's cursors as `wp_cursor_shape_device_v1` shapes, which the compositor draws from its
/// own theme at the output's scale. The protocol's shapes are the CSS cursor names, so each
/// `Cursor` name maps to the shape of that name; any other name (an app's own, or an old X11 one)
/// has no shape and is loaded from the cursor theme instead.
enum CursorShapes {
    /// The shape for a cursor name, or nil when the protocol has none of that name.
    static func shape(named name: String) -> WpCursorShapeDeviceV1.Shape? { shapes[name] }

    private static let shapes: [String: WpCursorShapeDeviceV1.Shape] = [
        "default": .default, "context-menu": .contextMenu, "help": .help, "pointer": .pointer,
        "progress": .progress, "wait": .wait, "cell": .cell, "crosshair": .crosshair,
        "text": .text, "vertical-text": .verticalText, "alias": .alias, "copy": .copy,
        "move": .move, "no-drop": .noDrop, "not-allowed": .notAllowed, "grab": .grab,
        "grabbing": .grabbing, "e-resize": .eResize, "n-resize": .nResize, "ne-resize": .neResize,
        "nw-resize": .nwResize, "s-resize": .sResize, "se-resize": .seResize, "sw-resize": .swResize,
        "w-resize": .wResize, "ew-resize": .ewResize, "ns-resize": .nsResize, "nesw-resize": .neswResize,
        "nwse-resize": .nwseResize, "col-resize": .colResize, "row-resize": .rowResize,
        "all-scroll": .allScroll, "zoom-in": .zoomIn, "zoom-out": .zoomOut,
    ]
}
