import CWaylandCursor
import Glibc
import Logging
import StrataCore
import WaylandClient

/// Cursor images from the user's Xcursor theme (`XCURSOR_THEME`, `XCURSOR_SIZE`), loaded by
/// libwayland-cursor into `wl_shm` buffers: one loaded theme per integer scale, at most
/// `maximumScale` of them. libwayland-cursor falls back to the default theme, and then to a few
/// built-in cursors, when the named theme is missing; a cursor the theme lacks falls back to
/// its older X11 name, then to the arrow. Animated cursors show their first image. Main actor
/// only, like the buffers.
@MainActor
final class CursorThemes {
    /// Scales above this use this one's images: every scale loads a whole theme.
    static let maximumScale = 4
    static let log = Logger(label: "strata.input")

    /// One cursor image, ready to attach.
    struct Image {
        /// The name the theme had it under: the one asked for, or a fallback.
        let name: String
        /// The `wl_buffer*`, owned by its theme.
        let buffer: OpaquePointer
        let width: Int32
        let height: Int32
        /// The hotspot in surface points (buffer pixels divided by `bufferScale`).
        let hotspot: (x: Int32, y: Int32)
        /// The `wl_surface.set_buffer_scale` to show it with: the image's sizes are multiples of it.
        let bufferScale: Int32
    }

    private let shm: WlShm
    private let themeName: String?
    /// The cursor size in points.
    let size: Int32
    /// Loaded themes by scale; nil where loading failed, so it is tried once.
    private var themes: [Int: OpaquePointer?] = [:]

    /// Themes named by `XCURSOR_THEME` (the default theme when unset) at `XCURSOR_SIZE`
    /// points, unless given.
    init(shm: WlShm, themeName: String? = nil, size: Int32? = nil) {
        self.shm = shm
        self.themeName = themeName ?? getenv("XCURSOR_THEME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        self.size = size ?? Self.size(from: getenv("XCURSOR_SIZE").map { String(cString: $0) })
    }

    /// `XCURSOR_SIZE` when it is a sane number of points, otherwise 24.
    static func size(from text: String?) -> Int32 {
        guard let text, let value = Int32(text), (1...256).contains(value) else { return 24 }
        return value
    }

    /// Frees every loaded theme and its buffers; call while the connection still exists.
    func destroy() {
        for case let theme? in themes.values { wl_cursor_theme_destroy(theme) }
        themes = [:]
    }

    /// The image for `cursor` at a scale (clamped to 1...`maximumScale`), or nil when neither
    /// the theme nor its fallbacks have one.
    func image(for cursor: Cursor, scale: Int) -> Image? {
        let scale = min(max(scale, 1), Self.maximumScale)
        guard let theme = theme(scale: scale) else { return nil }
        for name in Self.names(for: cursor.name) {
            guard let found = wl_cursor_theme_get_cursor(theme, name), found.pointee.image_count > 0,
                  let image = found.pointee.images[0], let buffer = wl_cursor_image_get_buffer(image) else { continue }
            let width = Int32(clamping: image.pointee.width), height = Int32(clamping: image.pointee.height)
            guard width > 0, height > 0 else { continue }
            // The largest buffer scale up to `scale` that divides both sizes: a theme without the
            // exact size gives a near one, and a size that is not a multiple is a protocol error.
            let bufferScale = Int32((1...scale).last { width % Int32($0) == 0 && height % Int32($0) == 0 } ?? 1)
            let hotspot = (Int32(clamping: image.pointee.hotspot_x) / bufferScale, Int32(clamping: image.pointee.hotspot_y) / bufferScale)
            return Image(name: name, buffer: buffer, width: width, height: height, hotspot: hotspot, bufferScale: bufferScale)
        }
        return nil
    }

    private func theme(scale: Int) -> OpaquePointer? {
        if let loaded = themes[scale] { return loaded }
        let theme = wl_cursor_theme_load(themeName, size * Int32(scale), shm.raw)
        if theme == nil, !themes.values.contains(where: { $0 == nil }) {
            Self.log.warning("no cursor theme could be loaded (XCURSOR_THEME \(themeName ?? "unset")); the cursor stays as the compositor shows it")
        }
        themes[scale] = .some(theme)
        return theme
    }

    /// The names to look `name` up by, in order: itself, the older X11 names themes used before
    /// the CSS names, and finally the arrow.
    static func names(for name: String) -> [String] {
        var names = [name] + (x11Names[name] ?? [])
        for arrow in ["default", "left_ptr"] where !names.contains(arrow) { names.append(arrow) }
        return names
    }

    private static let x11Names: [String: [String]] = [
        "default": ["left_ptr"],
        "pointer": ["hand2", "hand1"],
        "text": ["xterm"],
        "grab": ["openhand", "hand1"],
        "grabbing": ["closedhand", "fleur"],
        "crosshair": ["cross", "tcross"],
        "move": ["fleur"],
        "all-scroll": ["fleur"],
        "not-allowed": ["crossed_circle"],
        "no-drop": ["crossed_circle"],
        "wait": ["watch"],
        "progress": ["left_ptr_watch", "watch"],
        "help": ["question_arrow"],
        "n-resize": ["top_side"],
        "s-resize": ["bottom_side"],
        "w-resize": ["left_side"],
        "e-resize": ["right_side"],
        "nw-resize": ["top_left_corner"],
        "ne-resize": ["top_right_corner"],
        "sw-resize": ["bottom_left_corner"],
        "se-resize": ["bottom_right_corner"],
        "ew-resize": ["sb_h_double_arrow", "h_double_arrow"],
        "ns-resize": ["sb_v_double_arrow", "v_double_arrow"],
        "col-resize": ["sb_h_double_arrow"],
        "row-resize": ["sb_v_double_arrow"],
        "nesw-resize": ["fd_double_arrow"],
        "nwse-resize": ["bd_double_arrow"],
    ]
}
