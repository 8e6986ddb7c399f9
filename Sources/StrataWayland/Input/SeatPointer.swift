import Logging
import StrataCore
import WaylandClient

/// A seat's pointer: its events go, a frame at a time, to the Strata surface it entered, and it
/// shows the cursor that surface's hovered layer asks for: by name where the compositor offers
/// `wp_cursor_shape_manager_v1`, else as an image from the cursor theme. When the compositor offers
/// `zwp_pointer_gestures_v1`, touchpad pinches and swipes go to the surface each began on.
/// Main actor only.
@MainActor
public final class SeatPointer {
    /// The bound `wl_pointer`.
    public let proxy: WlPointer
    /// The id of the Strata surface the pointer is over, once its enter was delivered.
    public private(set) var focusedSurface: UInt32?
    /// The cursor shown over `focusedSurface`; nil before one was set, or when none could be loaded.
    public private(set) var shownCursor: Cursor?

    private var frames: PointerFrames
    /// The touchpad gesture in progress, and the surface it is for.
    private(set) var gestures = TouchpadGestures()
    /// The pointer's gesture objects, while it has them.
    private var swipe: ZwpPointerGestureSwipeV1?
    private var pinch: ZwpPointerGesturePinchV1?
    private let deliver: (SurfaceInput) -> Void
    private weak var session: WaylandSession?
    /// The serial of the enter that gave the focus: `set_cursor` must quote it.
    private var enterSerial: UInt32?
    /// The cursor's own surface, made on first use.
    private var cursorSurface: WlSurface?
    /// The pointer's `wp_cursor_shape_device_v1`, when the compositor draws named cursors.
    private var shapeDevice: WpCursorShapeDeviceV1?
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
        if let manager = session.pointerGestures { bindGestures(manager) }
        if let manager = session.cursorShapeManager {
            do {
                shapeDevice = try manager.getPointer(pointer: proxy)
            } catch {
                CursorThemes.log.error("the pointer's cursor shape device could not be made; cursors come from the theme: \(error)")
            }
        }
    }

    /// Releases the `wl_pointer`, its gesture objects and the cursor surface (when the capability
    /// goes, or the seat); a gesture in progress is cancelled, and the surface under the pointer
    /// sees it leave, first.
    func release() {
        for input in gestures.cancel(time: nil) { deliver(input) }
        // Destroying can only fail for an object libwayland already dropped (a broken connection,
        // which the session reports): there is then nothing left to release, and nothing to tell.
        try? swipe?.destroy()
        try? pinch?.destroy()
        // Before the pointer it was made for.
        try? shapeDevice?.destroy()
        swipe = nil
        pinch = nil
        shapeDevice = nil
        for input in frames.end() { route(input) }
        if proxy.version >= 3 { try? proxy.release() }
        try? cursorSurface?.destroy()
        cursorSurface = nil
    }

    /// Forgets a destroyed surface.
    func forget(surface: UInt32) {
        frames.forget(surface: surface)
        gestures.forget(surface: surface)
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
            // Once the pointer is gone the router drops gesture steps, so the gesture ends first.
            if gestures.active?.surface == input.surface {
                for cancel in gestures.cancel(time: input.time) { deliver(cancel) }
            }
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

    // MARK: Touchpad gestures

    /// Makes the pointer's swipe and pinch objects. A failure (a broken connection, which the
    /// session reports, or no memory) leaves the pointer without touchpad gestures, logged.
    private func bindGestures(_ manager: ZwpPointerGesturesV1) {
        do throws(WaylandError) {
            let swipe = try manager.getSwipeGesture(pointer: proxy)
            self.swipe = swipe
            swipe.addListener { [weak self] event in self?.handle(event) }
            let pinch = try manager.getPinchGesture(pointer: proxy)
            self.pinch = pinch
            pinch.addListener { [weak self] event in self?.handle(event) }
        } catch {
            Logger(label: "strata.input").error("the pointer's touchpad gestures could not be made; pinches and swipes are not delivered: \(error)")
        }
    }

    private func handle(_ event: ZwpPointerGestureSwipeV1.Event) {
        let inputs = switch event {
        case let .begin(_, time, surface, fingers): gestures.began(.swipe, surface: strataSurface(surface), fingers: fingers, time: time)
        case let .update(time, dx, dy): gestures.swipeUpdated(time: time, dx: dx, dy: dy)
        case let .end(_, time, cancelled): gestures.ended(.swipe, cancelled: cancelled != 0, time: time)
        }
        for input in inputs { deliver(input) }
    }

    private func handle(_ event: ZwpPointerGesturePinchV1.Event) {
        let inputs = switch event {
        case let .begin(_, time, surface, fingers): gestures.began(.pinch, surface: strataSurface(surface), fingers: fingers, time: time)
        case let .update(time, dx, dy, scale, rotation):
            gestures.pinchUpdated(time: time, dx: dx, dy: dy, scale: scale, rotation: rotation)
        case let .end(_, time, cancelled): gestures.ended(.pinch, cancelled: cancelled != 0, time: time)
        }
        for input in inputs { deliver(input) }
    }

    /// The id of `surface` when it is a Strata window's; nil for any other (a cursor surface, one
    /// Strata does not route input to) or one already destroyed, which a compositor may still name.
    private func strataSurface(_ surface: WlSurface?) -> UInt32? {
        guard let id = surface?.id, session?.client(for: id) != nil else { return nil }
        return id
    }

    // MARK: Cursor

    /// Shows the cursor the focused surface asks for, when it or the surface's scale changed.
    func refreshCursor() {
        guard let surface = focusedSurface, let serial = enterSerial, let session, let client = session.client(for: surface) else {
            return
        }
        let cursor = client.host.input.cursor
        if let shapeDevice, let shape = CursorShapes.shape(named: cursor.name) {
            // The compositor draws shapes at any scale, so only a new name is sent (scale 0).
            guard shown?.name != cursor.name || shown?.scale != 0 else { return }
            shown = (cursor.name, 0)
            do {
                try shapeDevice.setShape(serial: serial, shape: shape)
                shownCursor = cursor
            } catch {
                // Only a broken connection fails here; the session reports that.
                shown = nil
            }
            return
        }
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
