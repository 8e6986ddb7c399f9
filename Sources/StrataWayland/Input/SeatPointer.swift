import StrataCore
import WaylandClient

/// A seat's pointer: its events go, a frame at a time, to the Strata surface it entered, and it
/// shows the cursor that surface's hovered layer asks for. Main actor only.
@MainActor
public final class SeatPointer {
    /// The bound `wl_pointer`.
    public let proxy: WlPointer
    /// The id of the Strata surface the pointer is over, once its enter was delivered.
    public private(set) var focusedSurface: UInt32?
    /// The cursor shown over `focusedSurface`; nil before one was set, or when none could be loaded.
    public private(set) var shownCursor: Cursor?

    private var frames: PointerFrames
    private let deliver: (SurfaceInput) -> Void
    private weak var session: WaylandSession?
    /// The serial of the enter that gave the focus: `set_cursor` must quote it.
    private var enterSerial: UInt32?
    /// The cursor's own surface, made on first use.
    private var cursorSurface: WlSurface?
    /// What is on the cursor surface, so an unchanged cursor is not sent again.
    private var shown: (name: String, scale: Int)?

    init(proxy: WlPointer, session: WaylandSession, deliver: @escaping (SurfaceInput) -> Void) {
        self.proxy = proxy
        self.session = session
        self.deliver = deliver
        frames = PointerFrames(version: proxy.version)
        proxy.addListener { [weak self] event in
            guard let self else { return }
            let inputs = frames.handle(event)
            guard !inputs.isEmpty else { return }
            for input in inputs { route(input) }
            refreshCursor()
        }
    }

    /// Releases the `wl_pointer` and the cursor surface (when the capability goes, or the seat);
    /// the surface under the pointer sees it leave first.
    func release() {
        for input in frames.end() { route(input) }
        if proxy.version >= 3 { try? proxy.release() }
        try? cursorSurface?.destroy()
        cursorSurface = nil
    }

    /// Forgets a destroyed surface.
    func forget(surface: UInt32) {
        frames.forget(surface: surface)
        if focusedSurface == surface { leave() }
    }

    private func route(_ input: SurfaceInput) {
        switch input.event {
        case .pointerEntered:
            focusedSurface = input.surface
            enterSerial = input.serial
            shown = nil
        case .pointerExited:
            if focusedSurface == input.surface { leave() }
        default:
            break
        }
        deliver(input)
    }

    private func leave() {
        focusedSurface = nil
        enterSerial = nil
        shown = nil
        shownCursor = nil
    }

    // MARK: Cursor

    /// Shows the cursor the focused surface asks for, when it or the surface's scale changed.
    func refreshCursor() {
        guard let surface = focusedSurface, let serial = enterSerial, let session, let client = session.client(for: surface) else {
            return
        }
        let cursor = client.host.input.cursor
        let hostScale = client.host.scale
        // Buffer scales need wl_surface 3; before that, cursors are drawn at scale 1.
        let scale = hostScale.isFinite && session.compositor.version >= 3
            ? Int(min(max(hostScale.rounded(.up), 1), Double(CursorThemes.maximumScale))) : 1
        guard shown?.name != cursor.name || shown?.scale != scale else { return }
        shown = (cursor.name, scale)
        if cursor.name == "none" {
            // CSS "none": no image at all.
            try? proxy.setCursor(serial: serial, surface: nil, hotspotX: 0, hotspotY: 0)
            shownCursor = cursor
            return
        }
        guard let image = session.cursorThemes.image(for: cursor, scale: scale),
              let cursorSurface = cursorSurface ?? (try? session.compositor.createSurface()),
              let buffer = try? session.connection.wrap(image.buffer, as: WlBuffer.self) else { return }
        self.cursorSurface = cursorSurface
        do {
            try proxy.setCursor(serial: serial, surface: cursorSurface, hotspotX: image.hotspot.x, hotspotY: image.hotspot.y)
            if cursorSurface.version >= 3 { try cursorSurface.setBufferScale(scale: image.bufferScale) }
            try cursorSurface.attach(buffer: buffer, x: 0, y: 0)
            if cursorSurface.version >= 4 {
                try cursorSurface.damageBuffer(x: 0, y: 0, width: image.width, height: image.height)
            } else {
                try cursorSurface.damage(x: 0, y: 0, width: Int32.max, height: Int32.max)
            }
            try cursorSurface.commit()
            shownCursor = cursor
        } catch {
            // Only a broken connection fails here; the session reports that.
            shown = nil
        }
    }
}
