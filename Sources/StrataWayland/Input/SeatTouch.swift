import StrataCore
import WaylandClient

/// A seat's touch screen: each finger is routed to the Strata surface it went down on, and the
/// events of one `wl_touch.frame` are delivered together. Main actor only.
@MainActor
public final class SeatTouch {
    /// The bound `wl_touch`.
    public let proxy: WlTouch
    /// How many touch points are followed at once; more are ignored until some lift.
    public static let maximumPoints = TouchFrames.maximumPoints
    /// The ids of the touch points down on Strata's surfaces (and on surfaces Strata does not
    /// know, which receive nothing).
    public var activePoints: [Int32] { frames.points.keys.sorted() }

    private var frames = TouchFrames()
    private let deliver: (SurfaceInput) -> Void

    init(proxy: WlTouch, deliver: @escaping (SurfaceInput) -> Void) {
        self.proxy = proxy
        self.deliver = deliver
        proxy.addListener { [weak self] event in
            guard let self else { return }
            for input in frames.handle(event) { self.deliver(input) }
        }
    }

    /// Releases the `wl_touch` (when the capability goes, or the seat): touches in progress
    /// are cancelled first.
    func release() {
        for input in frames.end() { deliver(input) }
        if proxy.version >= 3 { try? proxy.release() }
    }

    /// Forgets a destroyed surface and its touches.
    func forget(surface: UInt32) { frames.forget(surface: surface) }

    /// Forgets one touch point, whose up the compositor will swallow: it took the touch over
    /// for an interactive move or resize.
    func forget(point id: Int32) { frames.forget(point: id) }
}

/// Turns `wl_touch` events into `InputEvent`s for the surface each point went down on, grouped
/// by `frame`; a state machine with no I/O.
///
/// A hostile compositor is contained: at most `maximumPoints` points are tracked, a second
/// `down` for a live id cancels the first (never releases it), ids never seen down are ignored, and a frame that never
/// ends goes out after `PointerFrames.maximumPending` events.
@MainActor
struct TouchFrames {
    /// How many touch points are followed at once.
    static let maximumPoints = 16

    /// The surface each touch point went down on, by touch id.
    private(set) var points: [Int32: UInt32] = [:]
    private var pending: [SurfaceInput] = []

    /// What `event` releases for delivery, in order.
    mutating func handle(_ event: WlTouch.Event) -> [SurfaceInput] {
        switch event {
        case let .down(serial, time, surface, id, x, y):
            // A live id touching down again is a compositor's mistake: the old finger is
            // cancelled, never released, so it cannot click what it was on. On the same surface
            // the router cancels it when the new down arrives.
            if let old = points.removeValue(forKey: id), old != surface?.id {
                pending.append(SurfaceInput(surface: old, event: .touchCancelled, time: time))
            }
            guard let surface = surface?.id, points.count < Self.maximumPoints else { break }
            points[id] = surface
            pending.append(SurfaceInput(surface: surface, event: .touchDown(id: id, at: Point(x: x, y: y)), time: time,
                                        serial: serial))
        case let .up(_, time, id):
            guard let surface = points.removeValue(forKey: id) else { break }
            pending.append(SurfaceInput(surface: surface, event: .touchUp(id: id), time: time))
        case let .motion(time, id, x, y):
            guard let surface = points[id] else { break }
            pending.append(SurfaceInput(surface: surface, event: .touchMoved(id: id, to: Point(x: x, y: y)), time: time))
        case .frame:
            return flush()
        case .cancel:
            // Whatever came before still happened; then every point is taken away.
            return end()
        case .shape, .orientation:
            break
        }
        return pending.count >= PointerFrames.maximumPending ? flush() : []
    }

    /// Ends every touch: what is pending, then a cancel for each surface with points down.
    mutating func end() -> [SurfaceInput] {
        var result = flush()
        var surfaces: [UInt32] = []
        for surface in points.values where !surfaces.contains(surface) { surfaces.append(surface) }
        result += surfaces.sorted().map { SurfaceInput(surface: $0, event: .touchCancelled) }
        points = [:]
        return result
    }

    /// Forgets a destroyed surface: its points and pending events.
    mutating func forget(surface: UInt32) {
        pending.removeAll { $0.surface == surface }
        points = points.filter { $0.value != surface }
    }

    /// Forgets one point without an up.
    mutating func forget(point id: Int32) {
        points[id] = nil
    }

    private mutating func flush() -> [SurfaceInput] {
        defer { pending = [] }
        return pending
    }
}
