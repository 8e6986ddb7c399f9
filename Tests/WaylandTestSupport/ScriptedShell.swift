import CWaylandServer
import Glibc
import Locking
import WaylandProtocols

/// What the scripted shell saw the client do; read by tests, written on the server thread.
public struct ShellObservations: Sendable {
    /// Buffers attached and committed on surfaces whose first configure was not yet acked.
    public var attachesBeforeConfigure = 0
    /// Commits that carried a buffer.
    public var bufferCommits = 0
    /// Frame callbacks requested so far, and how many the shell answered.
    public var frameCallbacksRequested = 0
    public var frameCallbacksDone = 0
    /// `xdg_wm_base.pong` serials.
    public var pongs: [UInt32] = []
    /// `ack_configure` serials.
    public var acks: [UInt32] = []
    /// The most buffers the client had committed and not yet got back at one time.
    public var mostBuffersHeld = 0
    public var toplevels = 0
    /// Toplevels created and not yet destroyed.
    public var liveToplevels = 0
    /// `wl_surface.destroy` while the surface still had its xdg_surface or toplevel: a client
    /// error that strict compositors refuse.
    public var surfacesDestroyedBeforeRole = 0
    public var title: String?
    /// The bytes of the last `set_title` and `set_app_id`, as they came, before any UTF-8 repair.
    public var titleBytes: [UInt8]?
    public var appIDBytes: [UInt8]?
    /// The last `set_min_size` and `set_max_size`, as (width, height).
    public var minimumSize: (Int32, Int32)?
    public var maximumSize: (Int32, Int32)?
    /// `wp_presentation.feedback` requests, and how many were answered `discarded`.
    public var feedbackRequested = 0
    public var feedbackDiscarded = 0
    /// Serials of `xdg_toplevel.move`, `resize` (with its edges) and `show_window_menu`.
    public var moves: [UInt32] = []
    public var resizes: [(serial: UInt32, edges: UInt32)] = []
    public var windowMenus: [UInt32] = []
    /// `set_maximized` (true) and `unset_maximized` (false) requests, in order.
    public var maximizeRequests: [Bool] = []
    /// The last `wp_viewport.set_destination`, as (width, height).
    public var viewportDestination: (Int32, Int32)?
    /// The pixels of the last buffer committed, once `captureFrames()` was called: what the
    /// compositor would show.
    public var lastFrame: TestFrame?
    /// The pixels of the last buffer each surface committed, by surface id, once
    /// `captureFrames()` was called: a window and its popup commit independently.
    public var lastFrames: [UInt32: TestFrame] = [:]

    /// Every `xdg_positioner` request, in order, from every positioner.
    public var positionerRequests: [PositionerRequest] = []
    /// Every popup made, in order of `get_popup`.
    public var popups: [PopupObservation] = []
    /// Popups made and not yet destroyed.
    public var livePopups = 0
    /// `popup_done` events sent, by the popup's surface id, in order.
    public var popupsDone: [UInt32] = []
    /// `xdg_popup.destroy` while a popup opened from it was still there: the protocol error
    /// `not_the_topmost_popup` in a strict compositor.
    public var popupsDestroyedBeforeChildren = 0
    /// An `xdg_surface` or `wl_surface` destroyed while a popup opened from it was still there.
    public var parentsDestroyedBeforePopups = 0
    /// The last `xdg_surface.set_window_geometry` of each surface, by the surface's id.
    public var windowGeometries: [UInt32: ShellRect] = [:]
    /// Protocol errors the shell sent, as `interface: code`.
    public var protocolErrors: [String] = []
}

/// One popup as the scripted shell saw it.
public struct PopupObservation: Sendable {
    /// The client's ids of the popup's surface and of its parent's surface (0 for none).
    public var surface: UInt32
    public var parent: UInt32
    /// The positioner's rules: those of `get_popup`, then of the last `reposition`.
    public var rules: PositionerRules
    /// The position and size last configured, relative to the parent's window geometry.
    public var placement: ShellRect?
    /// The serial of its `grab`, if it asked for one.
    public var grabSerial: UInt32?
    /// The tokens of its `reposition` requests, in order.
    public var repositionTokens: [UInt32] = []
    /// Whether it still exists.
    public var isLive = true
}

/// A committed shm buffer's pixels, as `0xAARRGGBB` values row by row.
public struct TestFrame: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt32]

    public subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] }

    /// The smallest rectangle, in pixels, holding every pixel for which `matches` is true.
    public func bounds(where matches: (UInt32) -> Bool) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var found: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<height {
            for x in 0..<width where matches(pixels[y * width + x]) {
                found = found.map { (min($0.minX, x), min($0.minY, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
            }
        }
        return found
    }
}

extension TestCompositor {
    /// What the shell frees the client's buffers after.
    public enum ReleasePolicy: Sendable {
        /// When a newer buffer replaces it, as most compositors do.
        case whenReplaced
        /// Never, until `releaseBuffers()`: a compositor holding buffers for many frames.
        case hold
    }

    /// Serves `wl_compositor` (v4), `wl_shm` and `xdg_wm_base` (v3), with everything the client
    /// does recorded in `observations` and the compositor's side done only when a test says.
    public func installShell(releasing policy: ReleasePolicy = .whenReplaced) {
        let observations = self.observations, inputSerials = self.inputSerials
        run { $0.installShell(policy: policy, observations: observations, inputSerials: inputSerials) }
    }

    /// Sends `configure` to every toplevel: a size (0 lets the client choose) and `states`, raw
    /// `xdg_toplevel.state` values (any number, known or not).
    public func configureToplevels(width: Int32 = 0, height: Int32 = 0, states: [UInt32] = []) {
        run { $0.shell?.configure(width: width, height: height, states: states) }
    }
    /// Sends `xdg_toplevel.close` to every toplevel.
    public func requestClose() { run { $0.shell?.sendClose() } }
    /// Sends `xdg_wm_base.ping` with `serial`.
    public func ping(serial: UInt32) { run { $0.shell?.ping(serial: serial) } }
    /// Answers every pending frame callback.
    public func completeFrames() { run { $0.shell?.completeFrames() } }
    /// Answers frame callbacks as they come, like a visible surface on a real compositor.
    public func answerFramesAutomatically(_ automatic: Bool) { run { $0.shell?.automaticFrames = automatic } }
    /// Keeps the pixels of each buffer committed from now on (`ShellObservations.lastFrame`).
    public func captureFrames() { run { $0.shell?.capturesFrames = true } }
    /// Releases every buffer the shell still holds, except each surface's current one.
    public func releaseBuffers() { run { $0.shell?.releaseHeldBuffers() } }
    public func setReleasePolicy(_ policy: ReleasePolicy) { run { $0.shell?.policy = policy } }

    /// How the shell answers `wp_presentation_feedback`.
    public enum FeedbackPolicy: Sendable {
        /// Offers no `wp_presentation` at all (KWin 5.27).
        case noPresentation
        /// Answers every feedback `discarded`.
        case discard
        /// Never answers (sway headless leaves almost all unanswered).
        case ignore
    }

    /// Offers `wp_presentation` answering by `policy`; call before clients connect.
    public func offerPresentation(_ policy: FeedbackPolicy) { run { $0.shell?.offerPresentation(policy) } }

    /// Offers a `wl_output` (v2); call before clients connect.
    public func offerOutput() { run { $0.shell?.offerOutput() } }
    /// Sends `scale` and `done` to every bound output, whatever the value.
    public func sendOutputScale(_ factor: Int32) { run { $0.shell?.sendOutputScale(factor) } }
    /// Sends a current `mode` of `width`×`height` and `done` to every bound output.
    public func sendOutputMode(width: Int32, height: Int32) { run { $0.shell?.sendOutputMode(width: width, height: height) } }
    /// Sends `wl_surface.enter` for the client's first output to every surface.
    public func enterOutput() { run { $0.shell?.enterOutput() } }
    /// Offers `wp_viewporter` and `wp_fractional_scale_manager_v1`; call before clients connect.
    public func offerFractionalScale() { run { $0.shell?.offerFractionalScale() } }
    /// Sends `wp_fractional_scale_v1.preferred_scale` (`scale`/120) to every surface that asked.
    public func sendPreferredScale(_ scale: UInt32) { run { $0.shell?.sendPreferredScale(scale) } }

    /// How the shell answers `xdg_popup.grab` with a serial no scripted seat sent with a press
    /// (see `forgetInputSerials()`). A grab after the popup is mapped always gets the protocol
    /// error `invalid_grab`, as the protocol says.
    public enum PopupGrabAnswer: Sendable {
        /// `popup_done` at once: what the protocol text asks ("if the compositor denies the
        /// grab, the popup will be immediately dismissed") and weston does.
        case dismiss
        /// The protocol error `xdg_popup.invalid_grab`, which ends the connection: a strict or
        /// hostile compositor.
        case protocolError
        /// Grants it anyway, as wlroots (sway 1.7) does without checking the serial.
        case accept
    }

    /// Answers grabs with unknown serials from now on as `answer` says (`.dismiss` until set).
    public func answerPopupGrabs(_ answer: PopupGrabAnswer) {
        run { $0.shell?.grabAnswer = answer }
        _ = runAndWait {}
    }
    /// Forgets every serial the scripted seats sent so far, as a compositor does once another
    /// press supersedes them: a grab with one is then refused.
    public func forgetInputSerials() { inputSerials.withLock { $0.removeAll() } }
    /// Sets the area popups must stay inside (an output's), and where toplevels' window
    /// geometry sits in it: `(0, 0, 1920, 1080)` and `(0, 0)` until set. Returns once the shell
    /// has them, so popups made after the call are placed by them.
    public func setPopupBounds(_ bounds: ShellRect, toplevelOrigin: (x: Int32, y: Int32) = (0, 0)) {
        let origin = (toplevelOrigin.x, toplevelOrigin.y)
        run { $0.shell?.popupBounds = bounds; $0.shell?.toplevelOrigin = origin }
        _ = runAndWait {}
    }
    /// Sends `xdg_popup.configure` with `placement` (relative to the parent's window geometry)
    /// and `xdg_surface.configure` to the popup of the client's surface `surface`.
    public func configurePopup(surface: UInt32, placement: ShellRect) { run { $0.shell?.configurePopup(surface: surface, placement) } }
    /// Dismisses the popup of surface `surface` and those opened from it, topmost first, with
    /// `popup_done`, as a compositor does on a click elsewhere.
    public func dismissPopup(surface: UInt32) { run { $0.shell?.dismissPopup(surface: surface) } }
}

/// The shell's protocol objects; lives on the server thread (see `ServerThreadState`).
final class ScriptedShell {
    /// Tags passed as each resource's implementation pointer, to tell interfaces apart.
    enum Kind: Int {
        case compositor = 1, surface, region, shm, shmPool, buffer, wmBase, positioner, xdgSurface, toplevel, callback, popup
        case presentation, feedback
        case output, viewporter, viewport, fractionalManager, fractionalScale
    }

    final class Surface {
        let resource: OpaquePointer
        var xdgSurface: OpaquePointer?
        var toplevel: OpaquePointer?
        var popup: OpaquePointer?
        /// A popup's parent, and where the popup was last placed against it.
        weak var parent: Surface?
        var placement: ShellRect?
        /// Whether a buffer was committed: a mapped popup may no longer grab.
        var isMapped = false
        var pendingBuffer: OpaquePointer?
        var current: OpaquePointer?
        var acked = false
        var pendingCallbacks: [OpaquePointer] = []
        var newCallbacks: [OpaquePointer] = []
        init(resource: OpaquePointer) { self.resource = resource }
    }

    var policy: TestCompositor.ReleasePolicy
    var automaticFrames = false
    var capturesFrames = false

    /// A client's shm pool: its file, kept open while a buffer or the pool needs it.
    private final class Pool {
        let fd: Int32
        var size: Int
        init(fd: Int32, size: Int) { self.fd = fd; self.size = size }
        deinit { close(fd) }
    }
    private struct BufferLayout {
        let pool: Pool
        let offset: Int, width: Int, height: Int, stride: Int
    }
    private var pools: [OpaquePointer: Pool] = [:]
    private var bufferLayouts: [OpaquePointer: BufferLayout] = [:]
    let observations: Locked<ShellObservations>
    private let display: OpaquePointer
    var surfaces: [Surface] = []
    private var held: [OpaquePointer] = []
    var serial: UInt32 = 100
    /// Serials the scripted seats sent with presses: the ones a popup may grab with.
    let inputSerials: Locked<Set<UInt32>>
    var grabAnswer = TestCompositor.PopupGrabAnswer.dismiss
    var popupBounds = ShellRect(x: 0, y: 0, width: 1920, height: 1080)
    var toplevelOrigin: (Int32, Int32) = (0, 0)
    /// Each positioner's rules so far.
    var positioners: [OpaquePointer: PositionerRules] = [:]
    /// The time frame callbacks report, in milliseconds: 16 more for each batch answered.
    private var frameTime: UInt32 = 1000
    private var feedbackPolicy = TestCompositor.FeedbackPolicy.noPresentation

    init(display: OpaquePointer, policy: TestCompositor.ReleasePolicy, observations: Locked<ShellObservations>,
         inputSerials: Locked<Set<UInt32>>) {
        self.display = display
        self.policy = policy
        self.observations = observations
        self.inputSerials = inputSerials
    }

    func createGlobals() {
        global(WlCompositor.self, version: 4, kind: .compositor)
        global(WlShm.self, version: 1, kind: .shm)
        global(XdgWmBase.self, version: 3, kind: .wmBase)
    }

    func offerPresentation(_ policy: TestCompositor.FeedbackPolicy) {
        feedbackPolicy = policy
        if policy != .noPresentation { global(WpPresentation.self, version: 1, kind: .presentation) }
    }

    private var outputs: [OpaquePointer] = []
    private var fractionalScales: [OpaquePointer] = []

    func offerOutput() { global(WlOutput.self, version: 2, kind: .output) }

    func offerFractionalScale() {
        global(WpViewporter.self, version: 1, kind: .viewporter)
        global(WpFractionalScaleManagerV1.self, version: 1, kind: .fractionalManager)
    }

    func sendOutputScale(_ factor: Int32) {
        for output in outputs {
            var arguments = [wl_argument(i: factor)]
            wl_resource_post_event_array(output, 3, &arguments)
            wl_resource_post_event_array(output, 2, nil)
        }
    }

    func sendOutputMode(width: Int32, height: Int32) {
        for output in outputs {
            var arguments = [wl_argument(u: WlOutput.Mode.current.rawValue), wl_argument(i: width), wl_argument(i: height),
                             wl_argument(i: 60_000)]
            wl_resource_post_event_array(output, 1, &arguments)
            wl_resource_post_event_array(output, 2, nil)
        }
    }

    func enterOutput() {
        for surface in surfaces {
            let client = wl_resource_get_client(surface.resource)
            guard let output = outputs.first(where: { wl_resource_get_client($0) == client }) else { continue }
            var arguments = [wl_argument(o: output)]
            wl_resource_post_event_array(surface.resource, 0, &arguments)
        }
    }

    func sendPreferredScale(_ scale: UInt32) {
        for fractional in fractionalScales {
            var arguments = [wl_argument(u: scale)]
            wl_resource_post_event_array(fractional, 0, &arguments)
        }
    }

    // MARK: Scripted actions

    func configure(width: Int32, height: Int32, states values: [UInt32]) {
        for surface in surfaces {
            guard let toplevel = surface.toplevel, let xdgSurface = surface.xdgSurface else { continue }
            var states = wl_array()
            wl_array_init(&states)
            for value in values {
                guard let slot = wl_array_add(&states, 4) else { break }
                slot.storeBytes(of: value, as: UInt32.self)
            }
            var toplevelArguments = [wl_argument(i: width), wl_argument(i: height), wl_argument(a: nil)]
            withUnsafeMutablePointer(to: &states) { pointer in
                toplevelArguments[2] = wl_argument(a: pointer)
                wl_resource_post_event_array(toplevel, 0, &toplevelArguments)
            }
            wl_array_release(&states)
            serial += 1
            var surfaceArguments = [wl_argument(u: serial)]
            wl_resource_post_event_array(xdgSurface, 0, &surfaceArguments)
        }
    }

    func sendClose() {
        for surface in surfaces { if let toplevel = surface.toplevel { wl_resource_post_event_array(toplevel, 1, nil) } }
    }

    func ping(serial: UInt32) {
        var arguments = [wl_argument(u: serial)]
        for resource in wmBases { wl_resource_post_event_array(resource, 0, &arguments) }
    }

    func completeFrames() {
        frameTime &+= 16
        for surface in surfaces {
            for callback in surface.pendingCallbacks {
                var arguments = [wl_argument(u: frameTime)]
                wl_resource_post_event_array(callback, 0, &arguments)
                wl_resource_destroy(callback)
                observations.withLock { $0.frameCallbacksDone += 1 }
            }
            surface.pendingCallbacks.removeAll()
        }
    }

    func releaseHeldBuffers() {
        let current = Set(surfaces.compactMap { $0.current.map(UnsafeRawPointer.init) })
        for buffer in held where !current.contains(UnsafeRawPointer(buffer)) {
            wl_resource_post_event_array(buffer, 0, nil)
        }
        held.removeAll { !current.contains(UnsafeRawPointer($0)) }
    }

    // MARK: Requests

    private var wmBases: [OpaquePointer] = []

    fileprivate func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        let client = wl_resource_get_client(resource)!
        let version = wl_resource_get_version(resource)
        switch (kind, opcode) {
        case (.compositor, 0):
            let surface = make(WlSurface.self, client, version, id: args[0].n, kind: .surface)
            surfaces.append(Surface(resource: surface))
        case (.compositor, 1):
            make(WlRegion.self, client, version, id: args[0].n, kind: .region)
        case (.surface, 0):
            if let surface = surface(resource), surface.xdgSurface != nil || surface.toplevel != nil || surface.popup != nil {
                observations.withLock { $0.surfacesDestroyedBeforeRole += 1 }
            }
            if let surface = surface(resource) {
                parentGoing(surface)
                // Its popup is gone with it, whatever the client does with the popup object.
                if surface.popup != nil { popupGone(surface) }
            }
            surfaces.removeAll { $0.resource == resource }
            wl_resource_destroy(resource)
        case (.surface, 1):
            surface(resource)?.pendingBuffer = args[0].o
        case (.surface, 3):
            let callback = make(WlCallback.self, client, 1, id: args[0].n, kind: .callback)
            surface(resource)?.newCallbacks.append(callback)
            observations.withLock { $0.frameCallbacksRequested += 1 }
        case (.surface, 6):
            commit(resource)
        case (.region, 0), (.shmPool, 1), (.buffer, 0), (.positioner, 0), (.wmBase, 0):
            held.removeAll { $0 == resource }
            wl_resource_destroy(resource)
        case (.positioner, _):
            positionerRequest(resource, opcode: opcode, args)
        case (.xdgSurface, 2):
            makePopup(resource, client: client, version: version, args)
        case (.xdgSurface, 3):
            let geometry = ShellRect(x: args[0].i, y: args[1].i, width: args[2].i, height: args[3].i)
            if let surface = surfaces.first(where: { $0.xdgSurface == resource }) {
                let id = wl_resource_get_id(surface.resource)
                observations.withLock { $0.windowGeometries[id] = geometry }
            }
        case (.popup, _):
            popupRequest(resource, opcode: opcode, args)
        case (.shm, 0):
            let pool = make(WlShmPool.self, client, version, id: args[0].n, kind: .shmPool)
            pools[pool] = Pool(fd: args[1].h, size: Int(max(args[2].i, 0)))
        case (.shmPool, 0):
            let buffer = make(WlBuffer.self, client, 1, id: args[0].n, kind: .buffer)
            if let pool = pools[resource] {
                bufferLayouts[buffer] = BufferLayout(pool: pool, offset: Int(args[1].i), width: Int(args[2].i),
                                                     height: Int(args[3].i), stride: Int(args[4].i))
            }
        case (.shmPool, 2):
            pools[resource]?.size = Int(max(args[0].i, 0))
        case (.wmBase, 1):
            make(XdgPositioner.self, client, version, id: args[0].n, kind: .positioner)
        case (.wmBase, 2):
            let xdgSurface = make(XdgSurface.self, client, version, id: args[0].n, kind: .xdgSurface)
            let target = args[1].o
            surfaces.first { $0.resource == target }?.xdgSurface = xdgSurface
        case (.wmBase, 3):
            observations.withLock { $0.pongs.append(args[0].u) }
        case (.xdgSurface, 0), (.toplevel, 0):
            if kind == .toplevel { observations.withLock { $0.liveToplevels -= 1 } }
            if kind == .xdgSurface, let surface = surfaces.first(where: { $0.xdgSurface == resource }) { parentGoing(surface) }
            for surface in surfaces {
                if surface.xdgSurface == resource { surface.xdgSurface = nil }
                if surface.toplevel == resource { surface.toplevel = nil }
            }
            wl_resource_destroy(resource)
        case (.xdgSurface, 1):
            let toplevel = make(XdgToplevel.self, client, version, id: args[0].n, kind: .toplevel)
            surfaces.first { $0.xdgSurface == resource }?.toplevel = toplevel
            observations.withLock { $0.toplevels += 1; $0.liveToplevels += 1 }
        case (.xdgSurface, 4):
            surfaces.first { $0.xdgSurface == resource }?.acked = true
            observations.withLock { $0.acks.append(args[0].u) }
        case (.presentation, 0):
            wl_resource_destroy(resource)
        case (.presentation, 1):
            let feedback = make(WpPresentationFeedback.self, client, 1, id: args[1].n, kind: .feedback)
            observations.withLock { $0.feedbackRequested += 1 }
            if feedbackPolicy == .discard {
                wl_resource_post_event_array(feedback, 2, nil)
                wl_resource_destroy(feedback)
                observations.withLock { $0.feedbackDiscarded += 1 }
            }
        case (.toplevel, 4):
            observations.withLock { $0.windowMenus.append(args[1].u) }
        case (.toplevel, 5):
            observations.withLock { $0.moves.append(args[1].u) }
        case (.toplevel, 6):
            observations.withLock { $0.resizes.append((args[1].u, args[2].u)) }
        case (.toplevel, 9), (.toplevel, 10):
            observations.withLock { $0.maximizeRequests.append(opcode == 9) }
        case (.viewporter, 0), (.viewport, 0), (.fractionalManager, 0):
            wl_resource_destroy(resource)
        case (.fractionalScale, 0):
            fractionalScales.removeAll { $0 == resource }
            wl_resource_destroy(resource)
        case (.viewporter, 1):
            make(WpViewport.self, client, version, id: args[0].n, kind: .viewport)
        case (.viewport, 2):
            let destination = (args[0].i, args[1].i)
            observations.withLock { $0.viewportDestination = destination }
        case (.fractionalManager, 1):
            fractionalScales.append(make(WpFractionalScaleV1.self, client, version, id: args[0].n, kind: .fractionalScale))
        case (.toplevel, 2):
            let title = args[0].s.map { String(cString: $0) }
            let bytes = args[0].s.map { Self.bytes(of: $0) }
            observations.withLock { $0.title = title; $0.titleBytes = bytes }
        case (.toplevel, 3):
            let bytes = args[0].s.map { Self.bytes(of: $0) }
            observations.withLock { $0.appIDBytes = bytes }
        case (.toplevel, 7):
            let size = (args[0].i, args[1].i)
            observations.withLock { $0.maximumSize = size }
        case (.toplevel, 8):
            let size = (args[0].i, args[1].i)
            observations.withLock { $0.minimumSize = size }
        default:
            break
        }
    }

    func surface(_ resource: OpaquePointer) -> Surface? { surfaces.first { $0.resource == resource } }

    private static func bytes(of string: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: string, count: strlen(string))).map { UInt8(bitPattern: $0) }
    }

    private func commit(_ resource: OpaquePointer) {
        guard let surface = surface(resource) else { return }
        surface.pendingCallbacks += surface.newCallbacks
        surface.newCallbacks.removeAll()
        if surface.popup != nil, surface.placement == nil, !surface.isMapped {
            // A popup's initial commit asks for its first configure.
            placeAndConfigure(surface)
        }
        if let buffer = surface.pendingBuffer {
            surface.pendingBuffer = nil
            surface.isMapped = true
            let previous = surface.current
            surface.current = buffer
            if !held.contains(buffer) { held.append(buffer) }
            if let previous, previous != buffer, policy == .whenReplaced {
                wl_resource_post_event_array(previous, 0, nil)
                held.removeAll { $0 == previous }
            }
            if capturesFrames, let frame = Self.pixels(of: buffer, bufferLayouts[buffer]) {
                let id = wl_resource_get_id(surface.resource)
                observations.withLock {
                    $0.lastFrame = frame
                    $0.lastFrames[id] = frame
                }
            }
            let acked = surface.acked, count = held.count
            observations.withLock {
                $0.bufferCommits += 1
                if !acked { $0.attachesBeforeConfigure += 1 }
                $0.mostBuffersHeld = max($0.mostBuffersHeld, count)
            }
        }
        if automaticFrames { completeFrames() }
    }

    /// The buffer's pixels, read through a mapping of its pool; nil when its layout does not
    /// fit the pool.
    private static func pixels(of buffer: OpaquePointer, _ layout: BufferLayout?) -> TestFrame? {
        guard let layout, layout.width > 0, layout.height > 0, layout.offset >= 0, layout.stride >= layout.width * 4,
              layout.offset + layout.stride * layout.height <= layout.pool.size else { return nil }
        guard let base = mmap(nil, layout.pool.size, PROT_READ, MAP_SHARED, layout.pool.fd, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, layout.pool.size) }
        var pixels = [UInt32](repeating: 0, count: layout.width * layout.height)
        for row in 0..<layout.height {
            let start = base.advanced(by: layout.offset + row * layout.stride)
            for column in 0..<layout.width {
                pixels[row * layout.width + column] = UInt32(littleEndian: start.loadUnaligned(fromByteOffset: column * 4, as: UInt32.self))
            }
        }
        return TestFrame(width: layout.width, height: layout.height, pixels: pixels)
    }

    // MARK: Resources

    @discardableResult
    func make(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32, id: UInt32, kind: Kind) -> OpaquePointer {
        let table = UnsafeRawPointer(type.descriptor.table).assumingMemoryBound(to: wl_interface.self)
        let resource = wl_resource_create(client, table, version, id)!
        wl_resource_set_dispatcher(resource, shellDispatcher, UnsafeRawPointer(bitPattern: kind.rawValue),
                                   Unmanaged.passUnretained(self).toOpaque(), shellResourceDestroyed)
        if kind == .wmBase { wmBases.append(resource) }
        if kind == .output { outputs.append(resource) }
        if kind == .presentation {
            var arguments = [wl_argument(u: UInt32(CLOCK_MONOTONIC))]
            wl_resource_post_event_array(resource, 0, &arguments)
        }
        if kind == .shm {
            for format in [WlShm.Format.argb8888, .xrgb8888] {
                var arguments = [wl_argument(u: format.rawValue)]
                wl_resource_post_event_array(resource, 0, &arguments)
            }
        }
        return resource
    }

    /// Drops every reference to a resource that is going away, whether the client destroyed it or
    /// disconnected: a shell serving one client after another must never touch a dead one.
    fileprivate func forget(_ resource: OpaquePointer) {
        pools[resource] = nil
        positioners[resource] = nil
        bufferLayouts[resource] = nil
        held.removeAll { $0 == resource }
        wmBases.removeAll { $0 == resource }
        outputs.removeAll { $0 == resource }
        fractionalScales.removeAll { $0 == resource }
        surfaces.removeAll { $0.resource == resource }
        for surface in surfaces {
            if surface.xdgSurface == resource { surface.xdgSurface = nil }
            if surface.toplevel == resource { surface.toplevel = nil }
            if surface.popup == resource { popupGone(surface) }
            if surface.pendingBuffer == resource { surface.pendingBuffer = nil }
            if surface.current == resource { surface.current = nil }
            surface.pendingCallbacks.removeAll { $0 == resource }
            surface.newCallbacks.removeAll { $0 == resource }
        }
    }

    private func global(_ type: any WaylandInterface.Type, version: Int32, kind: Kind) {
        let table = UnsafeRawPointer(type.descriptor.table).assumingMemoryBound(to: wl_interface.self)
        let binding = GlobalBinding(shell: self, type: type, kind: kind)
        // The shell lives until the display is destroyed, so its bindings do too.
        bindings.append(binding)
        let data = Unmanaged.passUnretained(binding).toOpaque()
        wl_global_create(display, table, version, data) { client, data, version, id in
            let binding = Unmanaged<GlobalBinding>.fromOpaque(data!).takeUnretainedValue()
            binding.shell?.make(binding.type, client!, Int32(version), id: id, kind: binding.kind)
        }
    }

    private var bindings: [GlobalBinding] = []

    private final class GlobalBinding {
        weak var shell: ScriptedShell?
        let type: any WaylandInterface.Type
        let kind: Kind
        init(shell: ScriptedShell, type: any WaylandInterface.Type, kind: Kind) {
            self.shell = shell
            self.type = type
            self.kind = kind
        }
    }

    fileprivate static func kind(of implementation: UnsafeRawPointer?) -> Kind? {
        Kind(rawValue: Int(bitPattern: implementation))
    }
}

/// libwayland-server calls this as any shell resource is destroyed.
private let shellResourceDestroyed: wl_resource_destroy_func_t = { resource in
    guard let resource, let data = wl_resource_get_user_data(resource) else { return }
    Unmanaged<ScriptedShell>.fromOpaque(data).takeUnretainedValue().forget(resource)
}

/// libwayland-server calls this for every request to a shell resource.
private let shellDispatcher: wl_dispatcher_func_t = { implementation, target, opcode, _, arguments in
    guard let target, let arguments, let kind = ScriptedShell.kind(of: implementation) else { return 0 }
    let resource = OpaquePointer(target)
    guard let data = wl_resource_get_user_data(resource) else { return 0 }
    Unmanaged<ScriptedShell>.fromOpaque(data).takeUnretainedValue().handle(kind, resource, opcode: opcode, arguments)
    return 0
}
