extension TransactionAction {
    /// A widget's contents changed: display it again, once per tick however many setters ran.
    public static let redisplay = TransactionAction("redisplay")
}

extension Layer {
    /// The queue transactions on this layer go to: its host's, or the main one before it is in a
    /// tree (joining a tree displays an async layer anyway).
    public var transactionQueue: TransactionQueue { host?.transactions ?? .main }

    /// For widget setters: schedules one `setNeedsDisplay()` for the next tick, coalescing every
    /// change made before it, as YYLabel's setters do through YYTransaction.
    public func setNeedsDisplayAtNextTick() {
        transactionQueue.commit(self, .redisplay) { $0.setNeedsDisplay() }
    }
}
