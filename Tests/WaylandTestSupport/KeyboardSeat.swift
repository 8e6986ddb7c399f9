import CWaylandServer
import Glibc
import WaylandProtocols

extension TestCompositor {
    /// Advertises a `wl_seat` with only a keyboard, whose `keymap` event carries `keymap` in a
    /// file: an event with a file descriptor, for testing who closes it.
    public func addKeyboardSeat(keymap: String) {
        run { KeyboardSeat(keymap: keymap).advertise(on: $0.display) }
    }
}

/// A seat whose keyboards send a keymap and accept nothing but `release`. Lives on the server
/// thread (see `ServerThreadState`) for as long as the display: its global holds it.
private final class KeyboardSeat {
    /// Tags passed as each resource's implementation pointer, to tell the interfaces apart.
    enum Kind: Int { case seat = 1, keyboard }

    let keymap: String

    init(keymap: String) { self.keymap = keymap }

    func advertise(on display: OpaquePointer) {
        // Retained for the process, like the shell's global bindings: globals have no release hook.
        let data = Unmanaged.passRetained(self).toOpaque()
        wl_global_create(display, KeyboardSeat.table(WlSeat.self), 1, data) { client, data, version, id in
            let seat = Unmanaged<KeyboardSeat>.fromOpaque(data!).takeUnretainedValue()
            let resource = seat.make(WlSeat.self, client!, Int32(version), id: id, kind: .seat)
            var capabilities = [wl_argument(u: WlSeat.Capability.keyboard.rawValue)]
            wl_resource_post_event_array(resource, 0, &capabilities)
        }
    }

    fileprivate func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch (kind, opcode) {
        case (.seat, 1):
            let client = wl_resource_get_client(resource)!
            let keyboard = make(WlKeyboard.self, client, wl_resource_get_version(resource), id: args[0].n, kind: .keyboard)
            sendKeymap(to: keyboard)
        case (.seat, 3), (.keyboard, 0):
            wl_resource_destroy(resource)
        default:
            break
        }
    }

    /// libwayland-server sends a duplicate of the descriptor, so this one is closed here.
    private func sendKeymap(to keyboard: OpaquePointer) {
        let bytes = Array(keymap.utf8)
        var path = Array("/tmp/strata-keymap-XXXXXX".utf8CString)
        let fd = mkstemp(&path)
        guard fd >= 0 else { return }
        unlink(path)
        defer { close(fd) }
        guard write(fd, bytes, bytes.count) == bytes.count else { return }
        var arguments = [wl_argument(u: WlKeyboard.KeymapFormat.xkbV1.rawValue), wl_argument(h: fd), wl_argument(u: UInt32(bytes.count))]
        wl_resource_post_event_array(keyboard, 0, &arguments)
    }

    /// The interface table, as the server library's type (the same C struct, imported twice).
    static func table(_ type: any WaylandInterface.Type) -> UnsafePointer<wl_interface> {
        UnsafeRawPointer(type.descriptor.table).assumingMemoryBound(to: wl_interface.self)
    }

    @discardableResult
    private func make(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32, id: UInt32, kind: Kind) -> OpaquePointer {
        let resource = wl_resource_create(client, Self.table(type), version, id)!
        wl_resource_set_dispatcher(resource, keyboardSeatDispatcher, UnsafeRawPointer(bitPattern: kind.rawValue),
                                   Unmanaged.passUnretained(self).toOpaque(), nil)
        return resource
    }
}

/// libwayland-server calls this for every request to a seat or keyboard resource.
private let keyboardSeatDispatcher: wl_dispatcher_func_t = { implementation, target, opcode, _, arguments in
    guard let target, let arguments, let kind = KeyboardSeat.Kind(rawValue: Int(bitPattern: implementation)),
          let data = wl_resource_get_user_data(OpaquePointer(target)) else { return 0 }
    Unmanaged<KeyboardSeat>.fromOpaque(data).takeUnretainedValue().handle(kind, OpaquePointer(target), opcode: opcode, arguments)
    return 0
}
