/// A generated proxy class for one protocol interface, such as `WlSurface`.
public protocol WaylandInterface: Proxy {
    /// The interface as these bindings know it: name, highest version, messages.
    nonisolated static var descriptor: InterfaceDescriptor { get }
}

extension Double {
    /// Converts `wl_fixed_t`, a signed 24.8 fixed-point number.
    @inlinable public init(waylandFixed raw: Int32) { self = Double(raw) / 256 }
}
