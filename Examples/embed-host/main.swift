// embed-host: a client written against Strata's raw Wayland layer that owns its window, paints
// it itself, and embeds a Strata layer tree in a subsurface. It runs its own poll loop and
// drives Strata through the pump API, and forwards its own seat's pointer, touch and keyboard
// input to Strata, where a button counts clicks (reported on standard output). Runs
// until closed, or for STRATA_DEMO_SECONDS seconds. With a screen reader running, the embedded
// part is read as the app's frame, "embed-host".
import Glibc
import Strata

/// The host's own colours, so tests can find each part in a screenshot.
let hostColour: UInt32 = 0xFF22_66AA
let embeddedBackground = Color(rgb: 0xEE7711)
let (hostWidth, hostHeight) = (360, 240)

/// A buffer the host fills itself: shm_open, mmap, and a solid colour.
@MainActor
func hostBuffer(_ shm: WlShm, width: Int, height: Int, colour: UInt32) throws -> WlBuffer {
    let size = width * height * 4
    let name = "/embed-host-\(getpid())"
    let fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw StrataError(.systemCall, "shm_open failed") }
    shm_unlink(name)
    defer { close(fd) }
    guard ftruncate(fd, off_t(size)) == 0, let pixels = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
          pixels != MAP_FAILED else { throw StrataError(.outOfMemory, "cannot map \(size) bytes") }
    pixels.initializeMemory(as: UInt32.self, repeating: colour, count: width * height)
    munmap(pixels, size)
    let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
    return try pool.createBuffer(offset: 0, width: Int32(width), height: Int32(height), stride: Int32(width * 4), format: .argb8888)
}

/// Strata's part: an animated card, rendered asynchronously.
@MainActor
final class Pulse: AsyncLayerDelegate {
    var phase = 0.0
    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let phase = phase
        return DisplayTask(display: { canvas, size, _ in
            let width = size.width * (0.25 + 0.7 * (0.5 + 0.5 * sin(phase * 2)))
            canvas.fill(Rect(x: 0, y: 0, width: width, height: size.height), color: .white, cornerRadius: size.height / 2)
        })
    }
}

@MainActor
func run() throws {
    // The host: its own connection and window, nothing of Strata's.
    let connection = try Connection.connect()
    let registry = connection.registry
    let compositor = try registry.bind(WlCompositor.self, maxVersion: 4)
    let shm = try registry.bind(WlShm.self, maxVersion: 1)
    let wmBase = try registry.bind(XdgWmBase.self, maxVersion: 1)
    let subcompositor = try registry.bind(WlSubcompositor.self, maxVersion: 1)
    wmBase.addListener { if case let .ping(serial) = $0 { try? wmBase.pong(serial: serial) } }

    let surface = try compositor.createSurface()
    let xdgSurface = try wmBase.getXdgSurface(surface: surface)
    let toplevel = try xdgSurface.getToplevel()
    try toplevel.setTitle(title: "embed-host")
    var configured = false, running = true
    xdgSurface.addListener { event in
        if case let .configure(serial) = event {
            try? xdgSurface.ackConfigure(serial: serial)
            configured = true
        }
    }
    toplevel.addListener { if case .close = $0 { running = false } }
    try surface.commit()
    while !configured { try connection.dispatch(timeout: .seconds(5)) }

    let child = try compositor.createSurface()
    let subsurface = try subcompositor.getSubsurface(surface: child, parent: surface)
    try subsurface.setPosition(x: 40, y: 40)
    try subsurface.setDesync()

    // Strata on the host's display, in the host's subsurface, on Strata's own queue.
    let loop = MainLoop()
    let session = try WaylandSession(adopting: connection.anchor.display, loop: loop)
    let embedded = try EmbeddedSurface(session: session, surface: child.raw!, size: Size(width: 280, height: 160))
    embedded.backgroundColor = embeddedBackground
    // To a screen reader the embedded part is the app's frame: named as the host's window, and
    // told where it sits in it.
    embedded.accessibilityTitle = "embed-host"
    embedded.accessibilityOrigin = Point(x: 40, y: 40)
    let painter = Pulse()
    let bar = AsyncLayer(delegate: painter)
    bar.frame = Rect(x: 20, y: 120, width: 240, height: 20)
    embedded.rootLayer.addSublayer(bar)
    let button = Button(title: "Clicked 0 times")
    button.frame = Rect(x: 20, y: 20, width: 180, height: 36)
    embedded.rootLayer.addSublayer(button)
    var clicks = 0
    button.addAction(for: .primaryActionTriggered) { button in
        clicks += 1
        button.title = "Clicked \(clicks) time" + (clicks == 1 ? "" : "s")
        report("clicked count=\(clicks)")
    }
    // The button's place in the host's window: the subsurface is at 40, 40.
    report("layout button=\(40 + 20),\(40 + 20),180,36")
    // Headless weston has no seat: then there is nothing to forward.
    let forwarding = registry.global(WlSeat.descriptor.name) == nil
        ? nil : try InputForwarding(registry: registry, embeddedSurface: child, to: embedded)
    let start = ContinuousClock.now
    let limit = getenv("STRATA_DEMO_SECONDS").flatMap { Double(String(cString: $0)) }
    embedded.onFrame = { _ in
        let elapsed = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - start).components.seconds)
        if let limit, elapsed > limit { running = false }
        painter.phase = elapsed
        bar.setNeedsDisplay()
    }

    let buffer = try hostBuffer(shm, width: hostWidth, height: hostHeight, colour: hostColour)
    try surface.attach(buffer: buffer, x: 0, y: 0)
    try surface.damageBuffer(x: 0, y: 0, width: Int32(hostWidth), height: Int32(hostHeight))
    try surface.commit()

    // The host's loop: poll its display and Strata's loop; pump Strata after each read.
    while running {
        try connection.prepareToRead()
        try loop.dispatch()
        var fds = [pollfd(fd: connection.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: loop.fileDescriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, 100)
        try connection.finishRead(readable: fds[0].revents != 0)
        try loop.dispatch()
    }
    print("embed-host: \(embedded.host.statistics)")
    withExtendedLifetime(forwarding) {}
}

/// Standard output, unbuffered: tests read it while the host runs.
func report(_ line: String) {
    let text = "embed-host: " + line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// The host's own seat: pointer and touch events over the subsurface go to Strata, in the
/// subsurface's coordinates (the ones `wl_pointer` gives for it), and the window's keyboard
/// events go to Strata whole, for it to translate with the compositor's keymap.
@MainActor
final class InputForwarding {
    private let seat: WlSeat
    private var pointer: WlPointer?
    private var touch: WlTouch?
    private var keyboard: WlKeyboard?
    private var pointerInside = false
    private var touchesInside: Set<Int32> = []

    init(registry: Registry, embeddedSurface: WlSurface, to embedded: EmbeddedSurface) throws {
        seat = try registry.bind(WlSeat.self, maxVersion: 5)
        seat.addListener { [weak self] event in
            guard let self, case let .capabilities(capabilities) = event else { return }
            if capabilities.contains(.pointer), pointer == nil, let pointer = try? seat.getPointer() {
                self.pointer = pointer
                pointer.addListener { [weak self] event in self?.pointerEvent(event, over: embeddedSurface, embedded) }
            }
            // The window's keys all go to the embedded part: it is the only thing that takes them.
            if capabilities.contains(.keyboard), keyboard == nil, let keyboard = try? seat.getKeyboard() {
                self.keyboard = keyboard
                keyboard.addListener { event in embedded.forward(event) }
            }
            if capabilities.contains(.touch), touch == nil, let touch = try? seat.getTouch() {
                self.touch = touch
                touch.addListener { [weak self] event in self?.touchEvent(event, over: embeddedSurface, embedded) }
            }
        }
    }

    private func pointerEvent(_ event: WlPointer.Event, over surface: WlSurface, _ embedded: EmbeddedSurface) {
        switch event {
        case let .enter(_, entered, x, y):
            pointerInside = entered?.id == surface.id
            if pointerInside { embedded.post(.pointerEntered(Point(x: x, y: y))) }
        case .leave:
            if pointerInside { embedded.post(.pointerExited) }
            pointerInside = false
        case let .motion(time, x, y) where pointerInside:
            embedded.post(.pointerMoved(Point(x: x, y: y)), time: time)
        case let .button(_, time, button, state) where pointerInside:
            embedded.post(.pointerButton(PointerButton(rawValue: button), isPressed: state == .pressed), time: time)
        case let .axis(time, axis, value) where pointerInside:
            let scroll = axis == .horizontalScroll ? ScrollInput(deltaX: value) : ScrollInput(deltaY: value)
            embedded.post(.scroll(scroll), time: time)
        default:
            break
        }
    }

    private func touchEvent(_ event: WlTouch.Event, over surface: WlSurface, _ embedded: EmbeddedSurface) {
        switch event {
        case let .down(_, time, touched, id, x, y) where touched?.id == surface.id:
            touchesInside.insert(id)
            embedded.post(.touchDown(id: id, at: Point(x: x, y: y)), time: time)
        case let .motion(time, id, x, y) where touchesInside.contains(id):
            embedded.post(.touchMoved(id: id, to: Point(x: x, y: y)), time: time)
        case let .up(_, time, id) where touchesInside.remove(id) != nil:
            embedded.post(.touchUp(id: id), time: time)
        case .cancel:
            if !touchesInside.isEmpty { embedded.post(.touchCancelled) }
            touchesInside = []
        default:
            break
        }
    }
}

do {
    try run()
} catch {
    let line = "embed-host: \(error)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}
