import CWaylandServer
import Glibc
import Locking
import WaylandProtocols

/// One `wl_pointer` event as a test scripts it. Surfaces are named by the client's object id
/// (`window.surface.id`); enums and buttons are raw numbers, so tests can send values no
/// protocol defines.
public enum PointerScript: Sendable {
    case enter(serial: UInt32, surface: UInt32, x: Double, y: Double)
    case leave(serial: UInt32, surface: UInt32)
    case motion(time: UInt32, x: Double, y: Double)
    case button(serial: UInt32, time: UInt32, button: UInt32, state: UInt32)
    case axis(time: UInt32, axis: UInt32, value: Double)
    case frame
    case axisSource(UInt32)
    case axisStop(time: UInt32, axis: UInt32)
    case axisDiscrete(axis: UInt32, steps: Int32)
    case axisValue120(axis: UInt32, value: Int32)
}

/// One `wl_touch` event as a test scripts it.
public enum TouchScript: Sendable {
    case down(serial: UInt32, time: UInt32, surface: UInt32, id: Int32, x: Double, y: Double)
    case up(serial: UInt32, time: UInt32, id: Int32)
    case motion(time: UInt32, id: Int32, x: Double, y: Double)
    case frame
    case cancel
}

/// One touchpad gesture event as a test scripts it, sent to every swipe or pinch object of the
/// seat's pointers (`zwp_pointer_gesture_swipe_v1`, `zwp_pointer_gesture_pinch_v1`). `cancelled`
/// is the raw protocol int, so tests can send values other than 0 and 1.
public enum GestureScript: Sendable {
    case swipeBegin(serial: UInt32, time: UInt32, surface: UInt32, fingers: UInt32)
    case swipeUpdate(time: UInt32, dx: Double, dy: Double)
    case swipeEnd(serial: UInt32, time: UInt32, cancelled: Int32)
    case pinchBegin(serial: UInt32, time: UInt32, surface: UInt32, fingers: UInt32)
    case pinchUpdate(time: UInt32, dx: Double, dy: Double, scale: Double, rotation: Double)
    case pinchEnd(serial: UInt32, time: UInt32, cancelled: Int32)
}

/// What a scripted seat saw its clients do.
public struct SeatObservations: Sendable {
    /// One `wl_pointer.set_cursor` request.
    public struct CursorRequest: Sendable, Equatable {
        public var serial: UInt32
        /// The client's id of the cursor surface; nil hides the cursor.
        public var surface: UInt32?
        public var hotspotX: Int32
        public var hotspotY: Int32
    }

    public var seatsBound = 0
    public var seatsReleased = 0
    public var pointersCreated = 0
    public var pointersReleased = 0
    public var touchesCreated = 0
    public var touchesReleased = 0
    public var keyboardsCreated = 0
    /// Pointers and touches the clients hold now.
    public var livePointers = 0
    public var liveTouches = 0
    /// `zwp_pointer_gestures_v1` binds and releases, and the swipe and pinch objects made from
    /// them, and those the clients hold now.
    public var gesturesBound = 0
    public var gesturesReleased = 0
    public var swipesCreated = 0
    public var pinchesCreated = 0
    public var liveSwipes = 0
    public var livePinches = 0
    public var cursorRequests: [CursorRequest] = []
    /// How many scripts (`pointer(_:)`, `touch(_:)`, `gestures(_:)`, capability changes) the
    /// seat has sent.
    public var scriptsSent = 0
}

extension TestCompositor {
    /// Advertises a scripted `wl_seat` at `version` with a pointer and a touch screen that send
    /// what tests script; a test's handle on it. With `gesturesVersion`, a
    /// `zwp_pointer_gestures_v1` at that version comes with it, for the seat's pointers.
    public func addPointerSeat(name: String = "scripted", version: Int32 = 8,
                               capabilities: WlSeat.Capability = [.pointer, .touch],
                               gesturesVersion: Int32? = nil) -> ScriptedSeat {
        let seat = ScriptedSeat(compositor: self, name: name, version: version, capabilities: capabilities,
                                gesturesVersion: gesturesVersion)
        let server = seat.server
        run { state in
            state.keepAlive(server)
            server.advertise(on: state.display)
        }
        return seat
    }
}

/// A test's handle on a scripted seat: it changes capabilities, withdraws the seat, and sends
/// pointer and touch events to every client's devices. Each call is queued for the server
/// thread; `observed.scriptsSent` counts those done.
public final class ScriptedSeat: Sendable {
    private let compositor: TestCompositor
    fileprivate let server: PointerSeatServer

    /// A copy of what the seat has seen now.
    public var observed: SeatObservations { server.observations.withLock { $0 } }

    fileprivate init(compositor: TestCompositor, name: String, version: Int32, capabilities: WlSeat.Capability,
                     gesturesVersion: Int32?) {
        self.compositor = compositor
        server = PointerSeatServer(name: name, version: version, capabilities: capabilities, gesturesVersion: gesturesVersion,
                                   inputSerials: compositor.inputSerials)
    }

    /// Sends `capabilities` to every bound seat.
    public func setCapabilities(_ capabilities: WlSeat.Capability) {
        let server = server
        compositor.run { _ in server.setCapabilities(capabilities) }
    }

    /// Withdraws the seat's global: clients receive `wl_registry.global_remove`.
    public func remove() {
        let server = server
        compositor.run { _ in server.remove() }
    }

    /// Sends `events` to every pointer, in order, in one go.
    public func pointer(_ events: [PointerScript]) {
        let server = server
        compositor.run { _ in server.send(events) }
    }

    /// Sends `events` to every touch, in order, in one go.
    public func touch(_ events: [TouchScript]) {
        let server = server
        compositor.run { _ in server.send(events) }
    }

    /// Sends `events` to every swipe or pinch object, in order, in one go.
    public func gestures(_ events: [GestureScript]) {
        let server = server
        compositor.run { _ in server.send(events) }
    }
}

/// The seat's libwayland-server side. `@unchecked Sendable` only so the handle can pass it to
/// commands: everything but `observations` is used on the server thread alone.
private final class PointerSeatServer: ResourceServer, @unchecked Sendable {
    private lazy var router = ResourceRouter(self)
    /// Tags passed as each resource's implementation pointer, to tell the interfaces apart.
    enum Kind: Int { case seat = 1, pointer, touch, keyboard, gestures, swipe, pinch, hold }

    let name: String
    let version: Int32
    let gesturesVersion: Int32?
    let observations = Locked(SeatObservations())
    private var capabilities: WlSeat.Capability
    private var global: OpaquePointer?
    private var resources: [(kind: Kind, resource: OpaquePointer)] = []

    /// The compositor's record of press serials, which its shell accepts popup grabs with.
    private let inputSerials: Locked<Set<UInt32>>

    init(name: String, version: Int32, capabilities: WlSeat.Capability, gesturesVersion: Int32?,
         inputSerials: Locked<Set<UInt32>>) {
        self.inputSerials = inputSerials
        self.name = name
        self.version = version
        self.capabilities = capabilities
        self.gesturesVersion = gesturesVersion
    }

    func advertise(on display: OpaquePointer) {
        // Kept alive by the server state (`keepAlive`) until the display is gone.
        let data = Unmanaged.passUnretained(self).toOpaque()
        global = wl_global_create(display, serverInterface(WlSeat.self), version, data) { client, data, version, id in
            let server = Unmanaged<PointerSeatServer>.fromOpaque(data!).takeUnretainedValue()
            server.bind(client!, version: Int32(version), id: id)
        }
        if let gesturesVersion {
            wl_global_create(display, serverInterface(ZwpPointerGesturesV1.self), gesturesVersion, data) { client, data, version, id in
                let server = Unmanaged<PointerSeatServer>.fromOpaque(data!).takeUnretainedValue()
                server.make(ZwpPointerGesturesV1.self, client!, Int32(version), id: id, kind: .gestures)
                server.observations.withLock { $0.gesturesBound += 1 }
            }
        }
    }

    private func bind(_ client: OpaquePointer, version: Int32, id: UInt32) {
        let seat = make(WlSeat.self, client, version, id: id, kind: .seat)
        observations.withLock { $0.seatsBound += 1 }
        var capabilities = [wl_argument(u: capabilities.rawValue)]
        wl_resource_post_event_array(seat, 0, &capabilities)
        if version >= 2 {
            name.withCString { text in
                var arguments = [wl_argument(s: text)]
                wl_resource_post_event_array(seat, 1, &arguments)
            }
        }
    }

    func setCapabilities(_ new: WlSeat.Capability) {
        capabilities = new
        var arguments = [wl_argument(u: new.rawValue)]
        for entry in resources where entry.kind == .seat { wl_resource_post_event_array(entry.resource, 0, &arguments) }
        observations.withLock { $0.scriptsSent += 1 }
    }

    func remove() {
        if let global { wl_global_destroy(global) }
        global = nil
        observations.withLock { $0.scriptsSent += 1 }
    }

    // MARK: Events

    func send(_ events: [PointerScript]) {
        for pointer in resources where pointer.kind == .pointer {
            let resource = pointer.resource
            let version = wl_resource_get_version(resource)
            for event in events {
                switch event {
                case let .enter(serial, surface, x, y):
                    guard let surface = surfaceResource(surface, of: resource) else { continue }
                    post(resource, 0, [wl_argument(u: serial), wl_argument(o: surface), fixed(x), fixed(y)])
                case let .leave(serial, surface):
                    guard let surface = surfaceResource(surface, of: resource) else { continue }
                    post(resource, 1, [wl_argument(u: serial), wl_argument(o: surface)])
                case let .motion(time, x, y):
                    post(resource, 2, [wl_argument(u: time), fixed(x), fixed(y)])
                case let .button(serial, time, button, state):
                    if state == 1 { inputSerials.withLock { _ = $0.insert(serial) } }
                    post(resource, 3, [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: button), wl_argument(u: state)])
                case let .axis(time, axis, value):
                    post(resource, 4, [wl_argument(u: time), wl_argument(u: axis), fixed(value)])
                case .frame where version >= 5:
                    post(resource, 5, [])
                case let .axisSource(source) where version >= 5:
                    post(resource, 6, [wl_argument(u: source)])
                case let .axisStop(time, axis) where version >= 5:
                    post(resource, 7, [wl_argument(u: time), wl_argument(u: axis)])
                case let .axisDiscrete(axis, steps) where version >= 5:
                    post(resource, 8, [wl_argument(u: axis), wl_argument(i: steps)])
                case let .axisValue120(axis, value) where version >= 8:
                    post(resource, 9, [wl_argument(u: axis), wl_argument(i: value)])
                default:
                    // Events the pointer's version does not have are not sent, as libwayland
                    // would refuse them in a real compositor.
                    continue
                }
            }
        }
        observations.withLock { $0.scriptsSent += 1 }
    }

    func send(_ events: [TouchScript]) {
        for touch in resources where touch.kind == .touch {
            let resource = touch.resource
            for event in events {
                switch event {
                case let .down(serial, time, surface, id, x, y):
                    guard let surface = surfaceResource(surface, of: resource) else { continue }
                    inputSerials.withLock { _ = $0.insert(serial) }
                    post(resource, 0, [wl_argument(u: serial), wl_argument(u: time), wl_argument(o: surface), wl_argument(i: id),
                                       fixed(x), fixed(y)])
                case let .up(serial, time, id):
                    post(resource, 1, [wl_argument(u: serial), wl_argument(u: time), wl_argument(i: id)])
                case let .motion(time, id, x, y):
                    post(resource, 2, [wl_argument(u: time), wl_argument(i: id), fixed(x), fixed(y)])
                case .frame:
                    post(resource, 3, [])
                case .cancel:
                    post(resource, 4, [])
                }
            }
        }
        observations.withLock { $0.scriptsSent += 1 }
    }

    func send(_ events: [GestureScript]) {
        for gesture in resources where gesture.kind == .swipe || gesture.kind == .pinch {
            let resource = gesture.resource
            for event in events {
                switch (gesture.kind, event) {
                case let (.swipe, .swipeBegin(serial, time, surface, fingers)), let (.pinch, .pinchBegin(serial, time, surface, fingers)):
                    guard let surface = surfaceResource(surface, of: resource) else { continue }
                    post(resource, 0, [wl_argument(u: serial), wl_argument(u: time), wl_argument(o: surface), wl_argument(u: fingers)])
                case let (.swipe, .swipeUpdate(time, dx, dy)):
                    post(resource, 1, [wl_argument(u: time), fixed(dx), fixed(dy)])
                case let (.pinch, .pinchUpdate(time, dx, dy, scale, rotation)):
                    post(resource, 1, [wl_argument(u: time), fixed(dx), fixed(dy), fixed(scale), fixed(rotation)])
                case let (.swipe, .swipeEnd(serial, time, cancelled)), let (.pinch, .pinchEnd(serial, time, cancelled)):
                    post(resource, 2, [wl_argument(u: serial), wl_argument(u: time), wl_argument(i: cancelled)])
                default:
                    // The other kind's event.
                    continue
                }
            }
        }
        observations.withLock { $0.scriptsSent += 1 }
    }

    private func post(_ resource: OpaquePointer, _ opcode: UInt32, _ arguments: [wl_argument]) {
        var arguments = arguments
        arguments.withUnsafeMutableBufferPointer { wl_resource_post_event_array(resource, opcode, $0.baseAddress) }
    }

    /// A 24.8 fixed-point value, saturated: tests send huge values on purpose.
    private func fixed(_ value: Double) -> wl_argument {
        let scaled = (value * 256).rounded()
        guard scaled.isFinite else { return wl_argument(f: 0) }
        return wl_argument(f: Int32(max(min(scaled, Double(Int32.max)), Double(Int32.min))))
    }

    /// The client's `wl_surface` with protocol id `id`, in the client of `resource`.
    private func surfaceResource(_ id: UInt32, of resource: OpaquePointer) -> OpaquePointer? {
        guard let client = wl_resource_get_client(resource), let object = wl_client_get_object(client, id),
              String(cString: wl_resource_get_class(object)) == WlSurface.descriptor.name else { return nil }
        return object
    }

    // MARK: Requests

    func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        let client = wl_resource_get_client(resource)!
        let version = wl_resource_get_version(resource)
        switch (kind, opcode) {
        case (.seat, 0):
            make(WlPointer.self, client, version, id: args[0].n, kind: .pointer)
            observations.withLock { $0.pointersCreated += 1; $0.livePointers += 1 }
        case (.seat, 1):
            make(WlKeyboard.self, client, version, id: args[0].n, kind: .keyboard)
            observations.withLock { $0.keyboardsCreated += 1 }
        case (.seat, 2):
            make(WlTouch.self, client, version, id: args[0].n, kind: .touch)
            observations.withLock { $0.touchesCreated += 1; $0.liveTouches += 1 }
        case (.seat, 3):
            observations.withLock { $0.seatsReleased += 1 }
            wl_resource_destroy(resource)
        case (.pointer, 0):
            let surface = args[1].o.map { wl_resource_get_id($0) }
            let request = SeatObservations.CursorRequest(serial: args[0].u, surface: surface, hotspotX: args[2].i, hotspotY: args[3].i)
            observations.withLock { $0.cursorRequests.append(request) }
        case (.pointer, 1):
            observations.withLock { $0.pointersReleased += 1 }
            wl_resource_destroy(resource)
        case (.touch, 0):
            observations.withLock { $0.touchesReleased += 1 }
            wl_resource_destroy(resource)
        case (.keyboard, 0):
            wl_resource_destroy(resource)
        case (.gestures, 0):
            make(ZwpPointerGestureSwipeV1.self, client, version, id: args[0].n, kind: .swipe)
            observations.withLock { $0.swipesCreated += 1; $0.liveSwipes += 1 }
        case (.gestures, 1):
            make(ZwpPointerGesturePinchV1.self, client, version, id: args[0].n, kind: .pinch)
            observations.withLock { $0.pinchesCreated += 1; $0.livePinches += 1 }
        case (.gestures, 2):
            observations.withLock { $0.gesturesReleased += 1 }
            wl_resource_destroy(resource)
        case (.gestures, 3):
            make(ZwpPointerGestureHoldV1.self, client, version, id: args[0].n, kind: .hold)
        case (.swipe, 0), (.pinch, 0), (.hold, 0):
            wl_resource_destroy(resource)
        default:
            break
        }
    }

    /// A resource is going: forget it, whether the client released it or went away.
    func destroyed(_ resource: OpaquePointer) {
        guard let index = resources.firstIndex(where: { $0.resource == resource }) else { return }
        let kind = resources.remove(at: index).kind
        observations.withLock {
            if kind == .pointer { $0.livePointers -= 1 }
            if kind == .touch { $0.liveTouches -= 1 }
            if kind == .swipe { $0.liveSwipes -= 1 }
            if kind == .pinch { $0.livePinches -= 1 }
        }
    }

    @discardableResult
    private func make(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32, id: UInt32, kind: Kind) -> OpaquePointer {
        let resource = router.make(type, client, version, id: id, kind: kind)
        resources.append((kind, resource))
        return resource
    }
}
