import CWaylandServer
import WaylandProtocols

/// The server side of some interfaces, played by a test: requests to its resources arrive at
/// `handle`, tagged with the `Kind` each resource was made with. Lives on the server thread.
protocol ResourceServer: AnyObject {
    associatedtype Kind: RawRepresentable where Kind.RawValue == Int
    func handle(_ kind: Kind, _ resource: OpaquePointer, opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>)
    /// A resource went, destroyed by its client or with it.
    func destroyed(_ resource: OpaquePointer)
}

/// The interface table, as the server library's type (the same C struct, imported twice).
func serverInterface(_ type: any WaylandInterface.Type) -> UnsafePointer<wl_interface> {
    UnsafeRawPointer(type.descriptor.table).assumingMemoryBound(to: wl_interface.self)
}

/// Makes a server's resources and routes libwayland-server's calls for them back to it: one C
/// dispatcher for every scripted server. The server owns its router, which points back at it
/// unowned, so both live as long as the server (until the display is gone).
final class ResourceRouter {
    private let handle: (Int, OpaquePointer, UInt32, UnsafeMutablePointer<wl_argument>) -> Void
    fileprivate let destroyed: (OpaquePointer) -> Void

    init<Server: ResourceServer>(_ server: Server) {
        handle = { [unowned server] tag, resource, opcode, arguments in
            guard let kind = Server.Kind(rawValue: tag) else { return }
            server.handle(kind, resource, opcode: opcode, arguments)
        }
        destroyed = { [unowned server] in server.destroyed($0) }
    }

    /// A resource of `type` for `client`, whose requests reach the server tagged `kind`.
    func make<Kind: RawRepresentable>(_ type: any WaylandInterface.Type, _ client: OpaquePointer, _ version: Int32,
                                      id: UInt32, kind: Kind) -> OpaquePointer where Kind.RawValue == Int {
        let resource = wl_resource_create(client, serverInterface(type), version, id)!
        wl_resource_set_dispatcher(resource, routedDispatcher, UnsafeRawPointer(bitPattern: kind.rawValue),
                                   Unmanaged.passUnretained(self).toOpaque(), routedResourceDestroyed)
        return resource
    }

    fileprivate func dispatch(_ tag: Int, _ resource: OpaquePointer, _ opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>) {
        handle(tag, resource, opcode, arguments)
    }
}

/// libwayland-server calls this for every request to a routed resource.
private let routedDispatcher: wl_dispatcher_func_t = { implementation, target, opcode, _, arguments in
    guard let target, let arguments, let data = wl_resource_get_user_data(OpaquePointer(target)) else { return 0 }
    Unmanaged<ResourceRouter>.fromOpaque(data).takeUnretainedValue()
        .dispatch(Int(bitPattern: implementation), OpaquePointer(target), opcode, arguments)
    return 0
}

/// libwayland-server calls this as a routed resource is destroyed.
private let routedResourceDestroyed: wl_resource_destroy_func_t = { resource in
    guard let resource, let data = wl_resource_get_user_data(resource) else { return }
    Unmanaged<ResourceRouter>.fromOpaque(data).takeUnretainedValue().destroyed(resource)
}
