import Synchronization

/// A generation counter for cancelling render work, after YYSentinel.
///
/// A display task records `value` when it starts; the work is cancelled once the value moves on.
/// Unsigned and 64-bit, so it never turns negative (YYSentinel's int32 could, and an index
/// derived from it went out of bounds: seed 004). Any thread may read or increase it.
public final class Sentinel: Sendable {
    private let counter = Atomic<UInt64>(0)

    /// A sentinel at generation 0.
    public init() {}

    /// The current generation.
    public var value: UInt64 { counter.load(ordering: .acquiring) }

    /// Moves to a new generation, cancelling everything started under older ones.
    /// - Returns: the new value.
    @discardableResult
    public func increase() -> UInt64 {
        counter.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Whether work started at `generation` has been superseded.
    @inlinable
    public func isCancelled(since generation: UInt64) -> Bool { value != generation }
}
