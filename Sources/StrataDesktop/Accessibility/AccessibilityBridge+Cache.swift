import StrataDBus

/// AT-SPI's `Cache` interface, at the path libatspi asks when it first meets an application.
/// Strata keeps no list of objects for readers to copy: they ask for what they need as they
/// go, and every change is told as it happens, so the answer is that nothing is cached, as
/// Qt's bridge answers. Without the object, each reader logs "Unknown object" on every start.
extension AccessibilityBridge {
    static let cachePath = "/org/a11y/atspi/cache"
    static let cacheInterface = "org.a11y.atspi.Cache"
    /// One cached item as at-spi2-core 2.46 reads it: the object, its application, its parent,
    /// its index and child count, interfaces, name, role, description and states.
    static let cacheItemSignature = "((so)(so)(so)iiassusau)"

    func exportCache() throws(DBusError) -> DBusSlot {
        try connection.exportObject(at: Self.cachePath, limits: DBusLimits(maximumStringBytes: 256, maximumValues: 4, maximumDepth: 2)) { [weak self] call in
            guard let self else { return }
            statistics.callsAnswered += 1
            do throws(DBusError) {
                if call.content.interface ?? Self.cacheInterface == Self.cacheInterface, call.content.member == "GetItems" {
                    try call.reply([.array(element: DBusSignature(Self.cacheItemSignature), [])])
                } else {
                    try call.replyError(name: DBusErrorName.unknownMethod, "the cache answers GetItems only")
                }
            } catch {
                // The caller may have left mid-call; nothing is lost but the answer.
                report(error)
            }
        }
    }
}
