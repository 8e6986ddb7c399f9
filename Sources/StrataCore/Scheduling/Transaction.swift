/// Names the work a transaction does to its target. Swift closures have no identity (seed 004),
/// so commits of the same work are recognised by target identity plus this explicit key.
public struct TransactionAction: Hashable, Sendable, CustomStringConvertible {
    /// The key's text; two actions with the same name are the same work.
    public let name: String
    /// An action named `name`.
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

/// Pending transactions, deduplicated by (target, action) and kept in first-commit order.
/// A state machine with no side effects: `TransactionQueue` drives it.
///
/// Targets are held weakly, so a pending transaction never keeps its target alive, and a target
/// that dies before the flush simply has nothing run.
struct TransactionSet {
    struct Key: Hashable {
        let target: ObjectIdentifier
        let action: TransactionAction
    }

    struct Entry {
        let key: Key
        weak var target: AnyObject?
        let perform: @MainActor (AnyObject) -> Void
    }

    enum CommitOutcome: Equatable { case added, coalesced }

    private(set) var entries: [Entry] = []
    private var indexByKey: [Key: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }

    mutating func commit(_ target: AnyObject, _ action: TransactionAction,
                         perform: @escaping @MainActor (AnyObject) -> Void) -> CommitOutcome {
        let key = Key(target: ObjectIdentifier(target), action: action)
        if let index = indexByKey[key] {
            // The same address may belong to a new object once the old one died: then the
            // entry is the new object's, keeping its original place in the order.
            if entries[index].target !== target {
                entries[index] = Entry(key: key, target: target, perform: perform)
            }
            return .coalesced
        }
        indexByKey[key] = entries.count
        entries.append(Entry(key: key, target: target, perform: perform))
        return .added
    }

    /// Everything committed so far, leaving the set empty for commits made during the flush.
    mutating func takeAll() -> [Entry] {
        defer {
            entries = []
            indexByKey = [:]
        }
        return entries
    }
}

/// The main thread's transactions, after YYTransaction: work committed against a target runs
/// once, at the next frame tick, however many times it was committed. A tick flushes what was
/// committed before it began; commits made during the flush run at the following tick.
///
/// Main actor only.
@MainActor
public final class TransactionQueue {
    /// A queue no host flushes unless given it explicitly (`LayerHost(transactions: .main)`), for
    /// sharing one queue between hosts on purpose.
    public static let main = TransactionQueue()

    /// Counts since the queue was created.
    public struct Counts: Equatable, Sendable {
        /// Every `commit` call.
        public var committed = 0
        /// Commits that joined a transaction already pending.
        public var coalesced = 0
        /// Transactions run by flushes.
        public var performed = 0
    }

    /// What the queue did since it was created.
    public private(set) var counts = Counts()
    private var pending = TransactionSet()
    private var observers: [ObjectIdentifier: () -> Void] = [:]

    /// An empty queue.
    public init() {}

    /// Schedules `action` on `target` for the next tick, once.
    ///
    /// - Parameter perform: runs on the main thread with the target. It receives the target so it
    ///   need not capture it; capture nothing that would keep the target alive.
    public func commit<Target: AnyObject>(_ target: Target, _ action: TransactionAction,
                                          perform: @escaping @MainActor (Target) -> Void) {
        let wasEmpty = pending.isEmpty
        let outcome = pending.commit(target, action) { perform($0 as! Target) }
        counts.committed += 1
        if outcome == .coalesced { counts.coalesced += 1 }
        if wasEmpty { for notify in observers.values { notify() } }
    }

    /// Whether anything waits for the next flush.
    public var hasPending: Bool { !pending.isEmpty }

    /// Runs what was committed before this call, in first-commit order.
    /// - Returns: how many transactions ran.
    @discardableResult
    public func flush() -> Int {
        let batch = pending.takeAll()
        var performed = 0
        for entry in batch {
            guard let target = entry.target else { continue }
            entry.perform(target)
            performed += 1
        }
        counts.performed += performed
        return performed
    }

    /// Calls `notify` whenever the queue goes from empty to pending, so a frame clock can
    /// schedule a tick. One observer per owner.
    func observe(_ owner: AnyObject, notify: @escaping () -> Void) {
        observers[ObjectIdentifier(owner)] = notify
    }

    func stopObserving(_ owner: ObjectIdentifier) {
        observers[owner] = nil
    }
}
