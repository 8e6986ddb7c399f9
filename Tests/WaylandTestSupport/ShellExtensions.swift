import CWaylandServer
import Glibc
import Locking
import WaylandProtocols

/// One request to the scripted `xdg_activation_v1` or one of its tokens, as it arrived. Surfaces
/// are the client's object ids (`window.surface.id`).
public enum ActivationRequest: Sendable, Equatable {
    case getToken
    case setSerial(UInt32)
    case setAppID(String)
    case setSurface(UInt32)
    case commit
    case destroyToken
    case activate(token: String, surface: UInt32)
}

/// How the scripted `xdg_activation_v1` answers a committed token request.
public enum ActivationAnswer: Sendable {
    /// `done` with `token-1`, `token-2`, … in order of commits.
    case numberedTokens
    /// `done` with these bytes as the token, whatever they are.
    case token([UInt8])
    /// Never: the request waits forever.
    case never
}

/// What the scripted shell extensions saw their clients do.
public struct ShellExtensionObservations: Sendable {
    /// One `wp_cursor_shape_device_v1.set_shape`.
    public struct ShapeRequest: Sendable, Equatable {
        public var serial: UInt32
        /// The raw `wp_cursor_shape_device_v1.shape` value.
        public var shape: UInt32
        public init(serial: UInt32, shape: UInt32) {
            self.serial = serial
            self.shape = shape
        }
    }

    public var shapeDevicesCreated = 0
    public var shapeDevicesDestroyed = 0
    public var shapeRequests: [ShapeRequest] = []
    /// `xdg_wm_dialog_v1.get_xdg_dialog`, by toplevel id.
    public var dialogsCreated: [UInt32] = []
    /// `set_modal` (true) and `unset_modal` (false), in order.
    public var modalRequests: [Bool] = []
    /// Dialog objects destroyed, and how many of them after their toplevel.
    public var dialogsDestroyed = 0
    public var dialogsDestroyedAfterToplevel = 0
    /// Every activation request, in order.
    public var activation: [ActivationRequest] = []
    /// How many buffers the scripted shell had seen committed at each `activate`: a compositor
    /// may ignore activation of a surface not yet mapped.
    public var bufferCommitsAtActivation: [Int] = []
}

extension TestCompositor {
    /// Advertises whichever of `wp_cursor_shape_manager_v1`, `xdg_wm_dialog_v1` and
    /// `xdg_activation_v1` (answering as `activation` says) are asked for, recording what
    /// clients do with them; call before clients connect.
    public func addShellExtensions(cursorShape: Bool = false, dialogs: Bool = false,
                                   activation: ActivationAnswer? = nil) -> ScriptedShellExtensions {
        let extensions = ScriptedShellExtensions(compositor: self, answer: activation ?? .never, shell: observations)
        let server = extensions.server
        run { state in
            state.keepAlive(server)
            server.advertise(on: state.display, cursorShape: cursorShape, dialogs: dialogs, activation: activation != nil)
        }
        return extensions
    }
}

/// A test's handle on the scripted shell extensions.
public final class ScriptedShellExtensions: Sendable {
    private let compositor: TestCompositor
    fileprivate let server: ShellExtensionServer

    /// A copy of what the extensions have seen now.
    public var observed: ShellExtensionObservations { server.observations.withLock { $0 } }

    fileprivate init(compositor: TestCompositor, answer: ActivationAnswer, shell: Locked<ShellObservations>) {
        self.compositor = compositor
        server = ShellExtensionServer(answer: answer, shell: shell)
    }

    /// Answers token requests committed from now on as `answer` says.
    public func answerActivation(_ answer: ActivationAnswer) {
        let server = server
        compositor.run { _ in server.answer = answer }
    }
}

/// The extensions' libwayland-server side. `@unchecked Sendable` only so the handle can pass it to
/// commands: everything but `observations` is used on the server thread alone.
private final class ShellExtensionServer: ResourceServer, @unchecked Sendable {
    private lazy var router = ResourceRouter(self)
    enum Kind: Int { case shapeManager = 1, shapeDevice, dialogManager, dialog, activation, token }

    let observations = Locked(ShellExtensionObservations())
    var answer: ActivationAnswer
    private var tokensIssued = 0
    /// Each dialog's toplevel, by the client's id, to tell whether it still exists.
    private var dialogToplevels: [OpaquePointer: UInt32] = [:]

    /// What the scripted shell saw, read as `activate` arrives.
    private let shell: Locked<ShellObservations>

    init(answer: ActivationAnswer, shell: Locked<ShellObservations>) {
        self.answer = answer
        self.shell = shell
    }

    func advertise(on display: OpaquePointer, cursorShape: Bool, dialogs: Bool, activation: Bool) {
        // Kept alive by the server state (`keepAlive`) until the display is gone.
        let data = Unmanaged.passUnretained(self).toOpaque()
        func offer(_ type: any WaylandInterface.Type, _ bind: wl_global_bind_func_t) { wl_global_create(display, serverInterface(type), 1, data, bind) }
        if cursorShape {
            offer(WpCursorShapeManagerV1.self) { client, data, version, id in
                _ = ShellExtensionServer.server(data).router.make(WpCursorShapeManagerV1.self, client!, Int32(version), id: id, kind: Kind.shapeManager)
            }
        }
        if dialogs {
            offer(XdgWmDialogV1.self) { client, data, version, id in
                _ = ShellExtensionServer.server(data).router.make(XdgWmDialogV1.self, client!, Int32(version), id: id, kind: Kind.dialogManager)
            }
        }
        if activation {
            offer(XdgActivationV1.self) { client, data, version, id in
                _ = ShellExtensionServer.server(data).router.make(XdgActivationV1.self, client!, Int32(version), id: id, kind: Kind.activation)
            }
        }
    }

    private static func server(_ data: UnsafeMutableRawPointer?) -> ShellExtensionServer {
        Unmanaged<ShellExtensionServer>.fromOpaque(data!).takeUnretainedValue()
    }

    func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        let client = wl_resource_get_client(resource)!
        let version = wl_resource_get_version(resource)
        switch (kind, opcode) {
        case (.shapeManager, 0), (.dialogManager, 0), (.activation, 0):
            wl_resource_destroy(resource)
        case (.shapeManager, 1), (.shapeManager, 2):
            _ = router.make(WpCursorShapeDeviceV1.self, client, version, id: args[0].n, kind: Kind.shapeDevice)
            observations.withLock { $0.shapeDevicesCreated += 1 }
        case (.shapeDevice, 0):
            observations.withLock { $0.shapeDevicesDestroyed += 1 }
            wl_resource_destroy(resource)
        case (.shapeDevice, 1):
            let request = ShellExtensionObservations.ShapeRequest(serial: args[0].u, shape: args[1].u)
            observations.withLock { $0.shapeRequests.append(request) }
        case (.dialogManager, 1):
            let dialog = router.make(XdgDialogV1.self, client, version, id: args[0].n, kind: Kind.dialog)
            let toplevel = args[1].o.map { wl_resource_get_id($0) } ?? 0
            dialogToplevels[dialog] = toplevel
            observations.withLock { $0.dialogsCreated.append(toplevel) }
        case (.dialog, 0):
            let toplevel = dialogToplevels[resource] ?? 0
            let toplevelGone = wl_client_get_object(client, toplevel).map {
                String(cString: wl_resource_get_class($0)) != XdgToplevel.descriptor.name
            } ?? true
            observations.withLock {
                $0.dialogsDestroyed += 1
                if toplevelGone { $0.dialogsDestroyedAfterToplevel += 1 }
            }
            wl_resource_destroy(resource)
        case (.dialog, 1), (.dialog, 2):
            observations.withLock { $0.modalRequests.append(opcode == 1) }
        case (.activation, 1):
            _ = router.make(XdgActivationTokenV1.self, client, version, id: args[0].n, kind: Kind.token)
            record(.getToken)
        case (.activation, 2):
            let token = args[0].s.map { String(cString: $0) } ?? ""
            record(.activate(token: token, surface: args[1].o.map { wl_resource_get_id($0) } ?? 0))
            let commits = shell.withLock { $0.bufferCommits }
            observations.withLock { $0.bufferCommitsAtActivation.append(commits) }
        case (.token, 0):
            record(.setSerial(args[0].u))
        case (.token, 1):
            record(.setAppID(args[0].s.map { String(cString: $0) } ?? ""))
        case (.token, 2):
            record(.setSurface(args[0].o.map { wl_resource_get_id($0) } ?? 0))
        case (.token, 3):
            record(.commit)
            sendDone(resource)
        case (.token, 4):
            record(.destroyToken)
            wl_resource_destroy(resource)
        default:
            break
        }
    }

    private func record(_ request: ActivationRequest) {
        observations.withLock { $0.activation.append(request) }
    }

    private func sendDone(_ token: OpaquePointer) {
        let bytes: [UInt8]
        switch answer {
        case .never: return
        case .numberedTokens:
            tokensIssued += 1
            bytes = Array("token-\(tokensIssued)".utf8)
        case let .token(given): bytes = given
        }
        // As C text: the bytes as they are, ended by a NUL.
        var text = bytes.map { CChar(bitPattern: $0) } + [0]
        text.withUnsafeMutableBufferPointer { buffer in
            var arguments = [wl_argument(s: UnsafePointer(buffer.baseAddress))]
            wl_resource_post_event_array(token, 0, &arguments)
        }
    }

    func destroyed(_ resource: OpaquePointer) {
        dialogToplevels[resource] = nil
    }
}
