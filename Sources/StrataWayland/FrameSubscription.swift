import StrataCore

/// The display-link subscription behind a surface's `onFrame` closure: made when a closure is
/// set, removed when it is cleared. The link holds the owner weakly, so the closure stored on the
/// owner makes no cycle through the link. Main actor only.
@MainActor
struct FrameSubscription {
    private var subscription: DisplayLink.Subscription?

    /// Subscribes `owner` to `link` (calling `call` once per frame) while `wanted`, and
    /// unsubscribes it when not.
    mutating func update<Owner: AnyObject>(wanted: Bool, on link: DisplayLink, for owner: Owner,
                                           call: @escaping @MainActor (Owner, DisplayLink.Frame) -> Void) {
        if wanted, subscription == nil {
            subscription = link.add(owner, action: call)
        } else if !wanted, let subscription {
            link.remove(subscription)
            self.subscription = nil
        }
    }
}
