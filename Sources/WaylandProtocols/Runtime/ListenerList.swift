/// Identifies a listener added to a proxy, for removing it.
public struct ListenerToken: Hashable, Sendable {
    let id: UInt64
}

/// The listeners of one proxy's events, called in the order they were added, so the toolkit and
/// an app can both listen to the same object without displacing each other.
///
/// A listener removed while an event is being delivered does not receive it; one added meanwhile
/// receives the next event. Main actor only.
@MainActor
package struct ListenerList<Event> {
    private var entries: [(token: ListenerToken, listener: (Event) -> Void)] = []
    private static var nextID: UInt64 { ListenerIDs.next() }

    package init() {}

    package mutating func add(_ listener: @escaping (Event) -> Void) -> ListenerToken {
        let token = ListenerToken(id: Self.nextID)
        entries.append((token, listener))
        return token
    }

    package mutating func remove(_ token: ListenerToken) {
        entries.removeAll { $0.token == token }
    }

    /// The listeners now, to iterate while the list may change.
    package var snapshot: [(token: ListenerToken, listener: (Event) -> Void)] { entries }

    /// Whether `token` is still listening.
    package func contains(_ token: ListenerToken) -> Bool { entries.contains { $0.token == token } }

    /// Whether anyone listens.
    package var isEmpty: Bool { entries.isEmpty }
}

/// Listener ids, unique across every proxy.
@MainActor
private enum ListenerIDs {
    static var last: UInt64 = 0
    static func next() -> UInt64 {
        last += 1
        return last
    }
}
