import CWaylandClient
import Glibc
import Synchronization
import SystemPackage

/// A Swift handle on a libwayland `wl_proxy`; generated classes such as `WlSurface` derive from it.
///
/// Main actor only: Wayland objects are touched by the toolkit's main thread alone, and the
/// compiler holds every caller to that. Releasing an owned proxy that was not destroyed
/// explicitly sends its argument-less destructor request (`destroy`, `release`) when the bound
/// version has one, and otherwise frees the client side.
@MainActor
public class Proxy {
    package enum Ownership {
        /// Strata created or adopted the object and frees it.
        case owned
        /// Someone else (libwayland or a host) owns it; this handle never frees it.
        case borrowed
        /// A `wl_proxy_create_wrapper` of another proxy, for sending on Strata's queue.
        case wrapper
    }

    /// The `wl_proxy*`; nil once the object is destroyed.
    public private(set) var raw: OpaquePointer?
    /// The object's protocol id, as `WAYLAND_DEBUG=1` prints it.
    public let id: UInt32
    /// The version the object was bound or created at (0 for the display, which has none).
    public let version: UInt32
    /// The interface the object implements.
    public let descriptor: InterfaceDescriptor
    package let anchor: DisplayAnchor
    private let ownership: Ownership

    /// Proxies alive in this process, of every ownership; atomic so a sampler on any thread can read it.
    private nonisolated static let live = Atomic<Int>(0)

    /// How many `Proxy` objects are alive in this process: created and not yet deinitialised,
    /// whether or not their Wayland object was destroyed. A count that keeps growing is a leak.
    /// Readable from any thread.
    public nonisolated static var liveCount: Int { live.load(ordering: .relaxed) }

    package required init(adopting raw: OpaquePointer, anchor: DisplayAnchor, ownership: Ownership, descriptor: InterfaceDescriptor) {
        self.raw = raw
        self.id = wl_proxy_get_id(raw)
        self.version = wl_proxy_get_version(raw)
        self.descriptor = descriptor
        self.anchor = anchor
        self.ownership = ownership
        Proxy.live.add(1, ordering: .relaxed)
        if ownership == .owned {
            wl_proxy_set_tag(raw, ProxyTag.pointer)
            // The last argument becomes the proxy's user data: the way back to this object.
            wl_proxy_add_dispatcher(raw, proxyDispatcher, nil, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    isolated deinit {
        Proxy.live.subtract(1, ordering: .relaxed)
        guard let raw else { return }
        switch ownership {
        case .owned:
            if let opcode = descriptor.implicitDestructor(at: version), anchor.connectionError() == nil {
                var none = wl_argument()
                wl_proxy_marshal_array_flags(raw, opcode, nil, version, UInt32(WL_MARSHAL_FLAG_DESTROY), &none)
            } else {
                wl_proxy_destroy(raw)
            }
        case .wrapper:
            wl_proxy_wrapper_destroy(UnsafeMutableRawPointer(raw))
        case .borrowed:
            break
        }
    }

    /// Whether the object still exists: false after its destructor request.
    public var isAlive: Bool { raw != nil }

    /// Decodes and delivers one event; generated classes override it.
    func dispatch(opcode: UInt32, arguments: UnsafeMutablePointer<wl_argument>) {}

    // MARK: Requests

    /// One request argument, in Swift terms; `marshal` turns it into a `wl_argument`.
    package enum RequestArgument {
        case int(Int32), uint(UInt32), fixed(Double), string(String?), object(Proxy?), newID
        case array([UInt8]), fd(FileDescriptor)
    }

    package func marshal(opcode: UInt32, _ arguments: [RequestArgument], destroying: Bool = false) throws(WaylandError) {
        _ = try send(opcode, arguments, creating: nil, version: version, destroying: destroying)
    }

    package func marshal<Created: WaylandInterface>(
        opcode: UInt32, _ arguments: [RequestArgument], creating type: Created.Type, version: UInt32? = nil,
        destroying: Bool = false
    ) throws(WaylandError) -> Created {
        let created = try send(opcode, arguments, creating: Created.descriptor, version: version ?? self.version, destroying: destroying)
        guard let created else {
            throw anchor.connectionError() ?? WaylandError(.outOfMemory, "libwayland could not create the \(Created.descriptor.name)")
        }
        return Created(adopting: created, anchor: anchor, ownership: .owned, descriptor: Created.descriptor)
    }

    private func send(
        _ opcode: UInt32, _ arguments: [RequestArgument], creating created: InterfaceDescriptor?, version: UInt32,
        destroying: Bool
    ) throws(WaylandError) -> OpaquePointer? {
        guard Int(opcode) < descriptor.requests.count else {
            throw WaylandError(.invalidArgument, "\(descriptor.name)@\(id) has no request \(opcode)")
        }
        let request = descriptor.requests[Int(opcode)]
        let label = "\(descriptor.name)@\(id).\(request.name)"
        guard let raw else {
            throw WaylandError(.objectDestroyed, "\(label): the object was already destroyed")
        }
        if self.version != 0 && request.since > self.version {
            throw WaylandError(.unsupportedRequest,
                               "\(label) needs version \(request.since), but the object was bound at version \(self.version)")
        }
        if let error = anchor.connectionError() { throw error }
        try Self.checkWireSize(of: arguments, label: label)

        var storage: [UnsafeMutableRawPointer] = []
        defer { storage.forEach { free($0) } }
        var values: [wl_argument] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments {
            switch argument {
            case .int(let value): values.append(wl_argument(i: value))
            case .uint(let value): values.append(wl_argument(u: value))
            case .fixed(let value):
                let scaled = (value * 256).rounded()
                guard scaled.isFinite, scaled >= Double(Int32.min), scaled <= Double(Int32.max) else {
                    throw WaylandError(.invalidArgument, "\(label): \(value) does not fit in a 24.8 fixed-point number")
                }
                values.append(wl_argument(f: Int32(scaled)))
            case .string(let value):
                var copy: UnsafeMutablePointer<CChar>?
                if let value {
                    guard let made = strdup(value) else { throw Self.outOfMemory(label) }
                    storage.append(UnsafeMutableRawPointer(made))
                    copy = made
                }
                values.append(wl_argument(s: copy.map { UnsafePointer($0) }))
            case .object(let object):
                if let object, object.raw == nil {
                    throw WaylandError(.objectDestroyed, "\(label): the \(object.descriptor.name)@\(object.id) argument was already destroyed")
                }
                values.append(wl_argument(o: object?.raw))
            case .newID: values.append(wl_argument(n: 0))
            case .array(let bytes):
                guard let header = malloc(MemoryLayout<wl_array>.size) else { throw Self.outOfMemory(label) }
                storage.append(header)
                guard let data = malloc(max(bytes.count, 1)) else { throw Self.outOfMemory(label) }
                storage.append(data)
                bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: $0.count) } }
                let array = header.bindMemory(to: wl_array.self, capacity: 1)
                array.initialize(to: wl_array(size: bytes.count, alloc: bytes.count, data: data))
                values.append(wl_argument(a: array))
            case .fd(let descriptor): values.append(wl_argument(h: descriptor.rawValue))
            }
        }
        let flags = destroying ? UInt32(WL_MARSHAL_FLAG_DESTROY) : 0
        let result = values.withUnsafeMutableBufferPointer { buffer in
            wl_proxy_marshal_array_flags(raw, opcode, created?.table, version, flags, buffer.baseAddress)
        }
        if destroying { self.raw = nil }
        return result
    }

    /// The largest message libwayland sends: its connection buffer holds 4096 bytes, and a
    /// larger request fails in `wl_closure_send`, which kills the whole connection. Compositors
    /// built on libwayland-server refuse larger ones too.
    package static let maximumMessageSize = 4096

    /// Refuses a request libwayland could not send, before anything is sent: a string with a NUL
    /// byte (the C string would end there, silently cut) or a message over `maximumMessageSize`.
    private static func checkWireSize(of arguments: [RequestArgument], label: String) throws(WaylandError) {
        func padded(_ count: Int) -> Int { (count + 3) & ~3 }
        var size = 8  // object id, opcode and size
        for argument in arguments {
            switch argument {
            case .int, .uint, .fixed, .object, .newID: size += 4
            case .fd: break  // passed beside the bytes, in a control message
            case .string(nil): size += 4
            case .string(let text?): size += 4 + padded(text.utf8.count + 1)
            case .array(let bytes): size += 4 + padded(bytes.count)
            }
            guard size <= maximumMessageSize else {
                throw WaylandError(.invalidArgument,
                                   "\(label): the request is larger than the \(maximumMessageSize) bytes a Wayland message may have")
            }
        }
        // Only once the size is known to be small, so a huge string is never scanned.
        for case .string(let text?) in arguments where text.utf8.contains(0) {
            throw WaylandError(.invalidArgument, "\(label): a string argument contains a NUL byte, which would end it early")
        }
    }

    private static func outOfMemory(_ label: String) -> WaylandError {
        WaylandError(.outOfMemory, "\(label): no memory to copy the request's arguments", errno: Errno(rawValue: ENOMEM))
    }

    // MARK: Event arguments

    /// The Swift proxy for an object argument: Strata's own when it made it, otherwise a borrowed
    /// handle. Nil when the object is gone.
    func object<Object: WaylandInterface>(_ type: Object.Type, _ raw: OpaquePointer?) -> Object? {
        guard let raw else { return nil }
        if let own = Proxy.own(raw) { return own as? Object }
        return Object(adopting: raw, anchor: anchor, ownership: .borrowed, descriptor: Object.descriptor)
    }

    /// An untyped object argument, when Strata made the object.
    func anyObject(_ raw: OpaquePointer?) -> Proxy? { raw.flatMap(Proxy.own) }

    /// A `new_id` argument: libwayland made the object for this event; Strata now owns it.
    /// Never nil: when libwayland cannot make it, it fails the connection instead of dispatching.
    func newObject<Object: WaylandInterface>(_ type: Object.Type, _ raw: OpaquePointer?) -> Object {
        Object(adopting: raw!, anchor: anchor, ownership: .owned, descriptor: Object.descriptor)
    }

    func string(_ value: UnsafePointer<CChar>?) -> String? { value.map { String(cString: $0) } }

    func array(_ value: UnsafeMutablePointer<wl_array>?) -> [UInt8] {
        guard let value, let data = value.pointee.data, value.pointee.size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: value.pointee.size))
    }

    private static func own(_ raw: OpaquePointer) -> Proxy? {
        guard wl_proxy_get_tag(raw) == ProxyTag.pointer, let data = wl_proxy_get_user_data(raw) else { return nil }
        return Unmanaged<Proxy>.fromOpaque(data).takeUnretainedValue()
    }
}

/// Marks the `wl_proxy`s whose user data is a Strata `Proxy`, so a proxy a host made on the same
/// display is never mistaken for one.
private enum ProxyTag {
    nonisolated(unsafe) static let pointer: UnsafePointer<UnsafePointer<CChar>?> = {
        let tag = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)
        tag.initialize(to: UnsafePointer(strdup("strata")))
        return UnsafePointer(tag)
    }()
}

/// libwayland calls this for every event on a Strata proxy, from the thread dispatching the
/// queue, which must be the main actor's.
private let proxyDispatcher: wl_dispatcher_func_t = { _, target, opcode, _, eventArguments in
    guard let target, let eventArguments, let userData = wl_proxy_get_user_data(OpaquePointer(target)) else { return 0 }
    // The pointers stay on this thread for the length of the call; assumeIsolated traps unless
    // that thread is the main actor's.
    nonisolated(unsafe) let data = userData
    nonisolated(unsafe) let arguments = eventArguments
    MainActor.assumeIsolated {
        let proxy = Unmanaged<Proxy>.fromOpaque(data).takeUnretainedValue()
        proxy.dispatch(opcode: opcode, arguments: arguments)
    }
    return 0
}
