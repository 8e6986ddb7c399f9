import WaylandProtocols

/// The compositor's globals, kept current from `wl_registry` events, and binding to them.
/// Main actor only.
@MainActor
public final class Registry {
    /// One advertised global.
    public struct Global: Hashable, Sendable {
        /// The registry's numeric name for it, used to bind it.
        public let name: UInt32
        /// The interface, such as `wl_compositor`.
        public let interface: String
        /// The highest version the compositor offers.
        public let version: UInt32
    }

    /// The globals currently advertised, in the order the compositor announced them; at most
    /// `maximumGlobals`.
    public private(set) var globals: [Global] = []
    /// How many globals are kept: real compositors advertise a few dozen, and one announcing
    /// more than this is ignored past it rather than followed without bound.
    public nonisolated static let maximumGlobals = 4096
    /// Called when a global appears after the first roundtrip, or before it for each initial one.
    public var onGlobal: ((Global) -> Void)?
    /// Called when the compositor withdraws a global, such as an unplugged output. Objects bound
    /// to it stay valid until destroyed, but should be destroyed.
    public var onGlobalRemove: ((Global) -> Void)?

    /// The `wl_registry` object behind this registry: its events keep `globals` current, and
    /// `bind` sends through it.
    public let proxy: WlRegistry

    init(_ proxy: WlRegistry) {
        self.proxy = proxy
        proxy.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .global(name, interface, version):
                guard self.globals.count < Self.maximumGlobals else { return }
                let global = Global(name: name, interface: interface, version: version)
                self.globals.append(global)
                self.onGlobal?(global)
            case let .globalRemove(name):
                guard let index = self.globals.firstIndex(where: { $0.name == name }) else { return }
                let global = self.globals.remove(at: index)
                self.onGlobalRemove?(global)
            }
        }
    }

    /// The first advertised global of an interface.
    public func global(_ interface: String) -> Global? {
        globals.first { $0.interface == interface }
    }

    /// Binds a global at the highest version both sides support: the lowest of what the
    /// compositor advertises, what the bindings know, and `maxVersion`.
    ///
    /// - Parameters:
    ///   - global: which global; by default the first one of `type`'s interface.
    ///   - maxVersion: the highest version the calling code is written for. Required: the
    ///     bindings' version is what the XML knows, not what the caller handles.
    /// - Throws: `globalUnavailable` when the compositor does not offer it, `invalidArgument` when
    ///   `global` is of another interface or `maxVersion` is 0.
    public func bind<Bound: WaylandInterface>(
        _ type: Bound.Type, global: Global? = nil, maxVersion: UInt32
    ) throws(WaylandError) -> Bound {
        let interface = Bound.descriptor.name
        guard let target = global ?? self.global(interface), globals.contains(target) else {
            throw WaylandError(.globalUnavailable, global == nil
                ? "the compositor does not offer \(interface)"
                : "global \(global!.name) (\(global!.interface)) is no longer advertised")
        }
        guard target.interface == interface, maxVersion > 0 else {
            throw WaylandError(.invalidArgument, maxVersion == 0
                ? "cannot bind \(interface) at version 0"
                : "global \(target.name) is a \(target.interface), not a \(interface)")
        }
        let version = min(target.version, Bound.descriptor.version, maxVersion)
        return try proxy.bind(name: target.name, Bound.self, version: version)
    }
}
