import StrataCore

/// A clock the test moves: animations are sampled at whatever it reads.
@MainActor
public final class InjectedClock {
    /// Nanoseconds; starts well away from 0 so no subtraction can underflow.
    public var now: UInt64 = 1_000_000_000_000

    public init() {}

    public func advance(seconds: Double) { now += UInt64(seconds * 1e9) }

    public func install(on host: LayerHost) { host.animationClock = { [unowned self] in now } }
}
