import Glibc
import StrataPlatform
import SystemPackage
import Testing
import WaylandClient
import WaylandTestSupport

/// A failure of the test support, with what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Connection {
    /// Dispatches until `condition` holds; fails the test after `timeout`.
    func dispatch(until condition: () -> Bool, timeout: Duration = .seconds(5),
                  sourceLocation: SourceLocation = #_sourceLocation) throws(WaylandError) {
        try poll(until: condition, timeout: timeout, sourceLocation: sourceLocation) { () throws(WaylandError) in
            try dispatch(timeout: .milliseconds(20))
        }
    }
}

/// The program under test, written against the raw Wayland layer: one xdg toplevel filled with a
/// flat colour, and the seat, whose pointer and keyboard it takes as soon as their capabilities
/// appear (as an application would), recording every event they bring.
@MainActor
final class TestClient {
    let connection: Connection
    let surface: WlSurface
    let seat: WlSeat
    /// The window's colour, as an `xrgb8888` pixel.
    let colour: UInt32
    /// A square of another colour at a known place in the window, to find it on screen by.
    let marker: (x: Int, y: Int, side: Int, colour: UInt32)?
    /// The seat's latest capabilities.
    private(set) var capabilities: WlSeat.Capability = []
    private(set) var pointer: WlPointer?
    private(set) var keyboard: WlKeyboard?
    /// Pointer events in arrival order, each as one readable line (see `describe`).
    private(set) var pointerLog: [String] = []
    /// Keyboard events in arrival order, with the keymap's descriptor already closed (read
    /// `keymaps` for its text).
    private(set) var keyboardEvents: [WlKeyboard.Event] = []
    /// The text of each `wl_keyboard.keymap` received.
    private(set) var keymaps: [String] = []
    /// The size of the latest configure that has a buffer committed.
    private(set) var size: (width: Int32, height: Int32) = (0, 0)

    private let shm: WlShm
    private let wmBase: XdgWmBase
    private var xdgSurface: XdgSurface?
    private var toplevel: XdgToplevel?
    private var pendingSize: (width: Int32, height: Int32) = (0, 0)
    private var buffer: (memory: SharedMemory, pool: WlShmPool, buffer: WlBuffer)?
    private var frameCallback: WlCallback?
    private var configures = 0

    /// Connects to `display` and binds what the window and the seat need; no window yet.
    init(display: String, colour: UInt32 = 0xff33_66cc, marker: (x: Int, y: Int, side: Int, colour: UInt32)? = nil) throws {
        connection = try Connection.connect(to: display)
        self.colour = colour
        self.marker = marker
        let registry = connection.registry
        surface = try registry.bind(WlCompositor.self, maxVersion: 4).createSurface()
        shm = try registry.bind(WlShm.self, maxVersion: 1)
        wmBase = try registry.bind(XdgWmBase.self, maxVersion: 2)
        // Version 7 at most: wl_pointer.axis_discrete gives way to axis_value120 at 8.
        seat = try registry.bind(WlSeat.self, maxVersion: 7)
        wmBase.addListener { [unowned self] event in
            if case let .ping(serial) = event { self.attempt { try self.wmBase.pong(serial: serial) } }
        }
        seat.addListener { [unowned self] event in
            if case let .capabilities(capabilities) = event { self.attempt { try self.seatChanged(capabilities) } }
        }
        try connection.roundtrip()
    }

    /// Maps the window and waits until the compositor has shown it: the latest configure acked
    /// with a buffer, that frame's callback done, and a roundtrip bringing no new configure. With
    /// `size`, also until the compositor has configured the window to it (sway resizes a tiled
    /// window while an earlier test's window is still going away).
    func showWindow(size expected: (width: Int32, height: Int32)? = (1024, 768), title: String = "strata input test",
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        if toplevel == nil {
            let xdgSurface = try wmBase.getXdgSurface(surface: surface)
            let toplevel = try xdgSurface.getToplevel()
            xdgSurface.addListener { [unowned self] event in
                if case let .configure(serial) = event { self.attempt { try self.configure(serial) } }
            }
            toplevel.addListener { [unowned self] event in
                if case let .configure(width, height, _) = event { self.pendingSize = (width, height) }
            }
            try toplevel.setTitle(title: title)
            try toplevel.setAppId(appId: "strata-input-test")
            try surface.commit()
            self.xdgSurface = xdgSurface
            self.toplevel = toplevel
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            try connection.dispatch(until: { configures > 0 && frameCallback == nil }, sourceLocation: sourceLocation)
            let before = configures
            try connection.roundtrip()
            let sized = expected.map { $0 == size } ?? true
            if configures == before && frameCallback == nil && sized { return }
            if configures == before { try connection.dispatch(timeout: .milliseconds(20)) }
        }
        Issue.record("the window was not shown within 10 s (size \(size))", sourceLocation: sourceLocation)
    }

    /// Forgets the events recorded so far.
    func clearEvents() {
        pointerLog.removeAll()
        keyboardEvents.removeAll()
    }

    /// Dispatches until `condition` holds; fails the test after `timeout`.
    func dispatch(until condition: () -> Bool, timeout: Duration = .seconds(5),
                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        try connection.dispatch(until: condition, timeout: timeout, sourceLocation: sourceLocation)
    }

    // MARK: Window

    private func configure(_ serial: UInt32) throws {
        try xdgSurface?.ackConfigure(serial: serial)
        let width = pendingSize.width > 0 ? pendingSize.width : 640
        let height = pendingSize.height > 0 ? pendingSize.height : 480
        if buffer == nil || size != (width, height) {
            buffer = try makeBuffer(width: width, height: height)
            size = (width, height)
        }
        try surface.attach(buffer: buffer?.buffer, x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: width, height: height)
        let callback = try surface.frame()
        callback.addListener { [unowned self] _ in self.frameCallback = nil }
        frameCallback = callback
        try surface.commit()
        configures += 1
    }

    private func makeBuffer(width: Int32, height: Int32) throws -> (memory: SharedMemory, pool: WlShmPool, buffer: WlBuffer) {
        let stride = Int(width) * 4
        let memory = try SharedMemory(size: stride * Int(height), name: "strata-input-test")
        let pixels = memory.address.bindMemory(to: UInt32.self, capacity: Int(width) * Int(height))
        pixels.update(repeating: colour, count: Int(width) * Int(height))
        if let marker {
            for y in max(marker.y, 0)..<min(marker.y + marker.side, Int(height)) {
                for x in max(marker.x, 0)..<min(marker.x + marker.side, Int(width)) { pixels[y * Int(width) + x] = marker.colour }
            }
        }
        let pool = try shm.createPool(fd: memory.fileDescriptor, size: Int32(memory.size))
        let buffer = try pool.createBuffer(offset: 0, width: width, height: height, stride: Int32(stride), format: .xrgb8888)
        return (memory, pool, buffer)
    }

    // MARK: Seat

    private func seatChanged(_ capabilities: WlSeat.Capability) throws {
        self.capabilities = capabilities
        if capabilities.contains(.pointer), pointer == nil {
            let pointer = try seat.getPointer()
            pointer.addListener { [unowned self] event in self.pointerLog.append(Self.describe(event)) }
            self.pointer = pointer
        } else if !capabilities.contains(.pointer), let pointer {
            try pointer.release()
            self.pointer = nil
        }
        if capabilities.contains(.keyboard), keyboard == nil {
            let keyboard = try seat.getKeyboard()
            keyboard.addListener { [unowned self] event in self.keyboardEvent(event) }
            self.keyboard = keyboard
        } else if !capabilities.contains(.keyboard), let keyboard {
            try keyboard.release()
            self.keyboard = nil
        }
    }

    private func keyboardEvent(_ event: WlKeyboard.Event) {
        if case let .keymap(_, fd, size) = event, size > 0 {
            // Valid only while the listeners run: read it now.
            if let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd.rawValue, 0), map != MAP_FAILED {
                let bytes = UnsafeRawBufferPointer(start: map, count: Int(size))
                keymaps.append(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
                munmap(map, Int(size))
            } else {
                Issue.record("cannot map the keymap: errno \(errno)")
            }
        }
        keyboardEvents.append(event)
    }

    /// One line per pointer event, with the parts tests compare: `enter 300.0 200.0`,
    /// `button 272 pressed`, `axis_discrete vertical 1`, `frame`.
    static func describe(_ event: WlPointer.Event) -> String {
        func name(_ axis: WlPointer.Axis) -> String {
            switch axis {
            case .verticalScroll: "vertical"
            case .horizontalScroll: "horizontal"
            default: "axis\(axis.rawValue)"
            }
        }
        switch event {
        case let .enter(_, _, x, y): return "enter \(x) \(y)"
        case .leave: return "leave"
        case let .motion(_, x, y): return "motion \(x) \(y)"
        case let .button(_, _, button, state): return "button \(button) \(state == .pressed ? "pressed" : "released")"
        case let .axis(_, axis, value): return "axis \(name(axis)) \(value)"
        case .frame: return "frame"
        case let .axisSource(source):
            let names: [WlPointer.AxisSource: String] = [.wheel: "wheel", .finger: "finger", .continuous: "continuous", .wheelTilt: "wheel_tilt"]
            return "axis_source \(names[source] ?? String(source.rawValue))"
        case let .axisStop(_, axis): return "axis_stop \(name(axis))"
        case let .axisDiscrete(axis, discrete): return "axis_discrete \(name(axis)) \(discrete)"
        case let .axisValue120(axis, value): return "axis_value120 \(name(axis)) \(value)"
        }
    }

    /// Runs a request from a listener, where nothing can be thrown: a failure fails the test.
    private func attempt(_ body: () throws -> Void) {
        do { try body() } catch { Issue.record("\(error)") }
    }
}
