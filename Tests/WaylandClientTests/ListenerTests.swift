import Glibc
import SystemPackage
import Testing
import WaylandClient
import WaylandTestSupport

/// Several listeners on one proxy, against the in-process compositor: each new global it
/// advertises is one `wl_registry.global` event.
@MainActor
struct ListenerTests {
    /// A connection whose registry has seen the initial (empty) set of globals.
    private func connect(_ server: TestCompositor) throws -> Connection {
        let connection = try Connection.connect(to: server.socketPath)
        try connection.roundtrip()
        return connection
    }

    @Test func everyListenerReceivesTheEventInTheOrderAdded() throws {
        let server = try TestCompositor()
        let connection = try connect(server)
        var calls: [String] = []
        connection.registry.proxy.addListener { if case let .global(_, interface, _) = $0 { calls.append("first \(interface)") } }
        connection.registry.proxy.addListener { if case let .global(_, interface, _) = $0 { calls.append("second \(interface)") } }

        server.addGlobal(WlOutput.self, version: 1)
        try connection.dispatch(until: { calls.count == 2 })
        #expect(calls == ["first wl_output", "second wl_output"])
        // The toolkit's own listener, the `Registry`'s, still ran.
        #expect(connection.registry.global("wl_output") != nil)
    }

    @Test func removingAListenerStopsOnlyThatOne() throws {
        let server = try TestCompositor()
        let connection = try connect(server)
        let registry = connection.registry.proxy
        var removed = 0, kept = 0
        let token = registry.addListener { _ in removed += 1 }
        registry.addListener { _ in kept += 1 }

        server.addGlobal(WlOutput.self, version: 1)
        try connection.dispatch(until: { kept == 1 })
        registry.removeListener(token)
        registry.removeListener(token)  // a second time does nothing
        server.addGlobal(WlSeat.self, version: 1)
        try connection.dispatch(until: { kept == 2 })
        #expect(removed == 1)
        #expect(connection.registry.globals.count == 2)
    }

    /// As documented on `addListener`: a listener added during delivery first receives the next
    /// event; one removed during delivery, by itself or by another, receives nothing more.
    @Test func listenersMayAddAndRemoveListenersDuringDelivery() throws {
        let server = try TestCompositor()
        let connection = try connect(server)
        let registry = connection.registry.proxy
        var calls: [String] = []
        var once: ListenerToken?, doomed: ListenerToken?
        var added = false
        // Weak: a listener holding its own proxy strongly would keep it, and the display, alive.
        once = registry.addListener { [weak registry] _ in
            calls.append("once")
            registry?.removeListener(once!)
        }
        registry.addListener { [weak registry] _ in
            calls.append("changer")
            if !added {
                added = true
                registry?.addListener { _ in calls.append("added") }
                registry?.removeListener(doomed!)
            }
        }
        doomed = registry.addListener { _ in calls.append("doomed") }
        registry.addListener { _ in calls.append("last") }

        server.addGlobal(WlOutput.self, version: 1)
        try connection.dispatch(until: { calls.last == "last" })
        #expect(calls == ["once", "changer", "last"])

        calls.removeAll()
        server.addGlobal(WlSeat.self, version: 1)
        try connection.dispatch(until: { calls.last == "added" })
        #expect(calls == ["changer", "last", "added"])
    }

    /// The proxy closes an event's file descriptor once every listener has returned, so each
    /// listener sees it open, and a listener that keeps it must `dup` it.
    @Test func eventDescriptorsAreOpenOnlyWhileListenersRun() throws {
        let keymap = "xkb_keymap { strata test };"
        let server = try TestCompositor()
        server.addKeyboardSeat(keymap: keymap)
        let connection = try connect(server)
        // Version 1: the test needs only get_keyboard and the keymap event.
        let seat = try connection.registry.bind(WlSeat.self, maxVersion: 1)
        let keyboard = try seat.getKeyboard()
        var texts: [String] = []
        var firstSaw: FileIdentity?, secondSaw: FileIdentity?
        var received: FileDescriptor?, kept: FileDescriptor?
        keyboard.addListener { event in
            guard case let .keymap(_, fd, size) = event else { return }
            firstSaw = FileIdentity(fd)
            texts.append(contents(of: fd, size: Int(size)))
            kept = try? fd.duplicate()
        }
        keyboard.addListener { event in
            guard case let .keymap(_, fd, _) = event else { return }
            secondSaw = FileIdentity(fd)
            received = fd
        }
        try connection.dispatch(until: { received != nil })

        #expect(texts == [keymap])
        #expect(firstSaw != nil && secondSaw == firstSaw)
        // Closed after the listeners: its number is free now, or names another file if a test
        // running in parallel took it.
        let number = try #require(received)
        #expect(FileIdentity(number) != firstSaw)
        let copy = try #require(kept)
        defer { try? copy.close() }
        #expect(FileIdentity(copy) == firstSaw)
        #expect(contents(of: copy, size: keymap.utf8.count) == keymap)
    }

    @Test func bindingNeverExceedsTheRequestedVersion() throws {
        let server = try TestCompositor()
        // Version 2: below `release` (3), which the plain test global would not handle.
        server.addGlobal(WlOutput.self, version: 2)
        let connection = try connect(server)
        #expect(try connection.registry.bind(WlOutput.self, maxVersion: 1).version == 1)
        // Above what is advertised, the advertised version wins.
        #expect(try connection.registry.bind(WlOutput.self, maxVersion: 100).version == 2)
        try connection.roundtrip()
    }
}

/// Which file a descriptor names, by device and inode; nil when the descriptor is closed.
private struct FileIdentity: Equatable {
    let device: UInt
    let inode: UInt

    init?(_ fd: FileDescriptor) {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { return nil }
        device = UInt(info.st_dev)
        inode = UInt(info.st_ino)
    }
}

private func contents(of fd: FileDescriptor, size: Int) -> String {
    var bytes = [UInt8](repeating: 0, count: size)
    let count = bytes.withUnsafeMutableBytes { (try? fd.read(fromAbsoluteOffset: 0, into: $0)) ?? 0 }
    return String(decoding: bytes.prefix(count), as: UTF8.self)
}
