import StrataCore

extension TransactionAction {
    /// A widget's contents changed: display it again, once per tick however many setters ran.
    public static let redisplay = TransactionAction("redisplay")
}

extension Layer {
    /// For widget setters: schedules one `setNeedsDisplay()` for the next tick of this layer's
    /// host, coalescing every change made before it, as YYLabel's setters do through
    /// YYTransaction. A layer in no tree just marks itself: joining a tree displays it anyway.
    public func setNeedsDisplayAtNextTick() {
        guard let host else { return setNeedsDisplay() }
        host.transactions.commit(self, .redisplay) { $0.setNeedsDisplay() }
    }
}
