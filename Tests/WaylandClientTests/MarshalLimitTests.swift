import CWaylandClient
import Testing
import WaylandClient
import WaylandTestSupport

/// Requests libwayland cannot send: refused with a typed error before anything goes out, so the
/// connection lives on (libwayland itself would end it).
@MainActor
struct MarshalLimitTests {
    private func toplevel() throws -> (TestCompositor, Connection, XdgToplevel) {
        let server = try TestCompositor()
        server.installShell()
        let connection = try Connection.connect(to: server.socketPath)
        let compositor = try connection.registry.bind(WlCompositor.self, maxVersion: 4)
        let wmBase = try connection.registry.bind(XdgWmBase.self, maxVersion: 3)
        let surface = try compositor.createSurface()
        let toplevel = try wmBase.getXdgSurface(surface: surface).getToplevel()
        return (server, connection, toplevel)
    }

    @Test func aStringTooLargeForAMessageIsRefused() throws {
        let (server, connection, toplevel) = try toplevel()
        let error = try #require(throws: WaylandError.self) { try toplevel.setTitle(title: String(repeating: "題", count: 100_000)) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("xdg_toplevel"))
        // The largest title that fits: header 8, length 4, then the text, its NUL and padding.
        let largest = String(repeating: "a", count: Proxy.maximumMessageSize - 8 - 4 - 4)
        try toplevel.setTitle(title: largest)
        // Four bytes more take one more word of padding.
        #expect(throws: WaylandError.self) { try toplevel.setTitle(title: largest + "aaaa") }
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.error == nil)
        #expect(server.observed.title?.utf8.count == largest.utf8.count)
    }

    @Test func aStringWithANulIsRefused() throws {
        let (server, connection, toplevel) = try toplevel()
        let error = try #require(throws: WaylandError.self) { try toplevel.setTitle(title: "before\0after") }
        #expect(error.code == .invalidArgument)
        try toplevel.setTitle(title: "whole")
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.error == nil)
        #expect(server.observed.title == "whole")
    }

    @Test func anArrayTooLargeForAMessageIsRefused() throws {
        let (server, connection, toplevel) = try toplevel()
        // No request of the bound protocols takes an array; the check comes before the signature matters.
        let error = try #require(throws: WaylandError.self) {
            try toplevel.marshal(opcode: 2, [.array([UInt8](repeating: 7, count: 5000))])
        }
        #expect(error.code == .invalidArgument)
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.error == nil)
        #expect(server.observed.title == nil, "nothing was sent")
    }
}

/// Descriptors and opcodes are public or package API: absurd values are errors, not traps.
@MainActor
struct DescriptorLimitTests {
    @Test func anUnknownOpcodeIsRefused() throws {
        let server = try TestCompositor()
        let connection = try Connection.connect(to: server.socketPath)
        let error = try #require(throws: WaylandError.self) { try connection.registry.proxy.marshal(opcode: 99, []) }
        #expect(error.code == .invalidArgument)
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.error == nil)
    }

    @Test func aDescriptorVersionBeyondInt32IsClamped() {
        let descriptor = InterfaceDescriptor(name: "strata_test_absurd", version: .max, requests: [], events: [])
        #expect(descriptor.table.pointee.version == .max)
    }
}

/// A compositor advertising globals without end: the registry keeps at most `maximumGlobals`.
@MainActor
struct GlobalFloodTests {
    @Test func aFloodOfGlobalsIsCapped() throws {
        let server = try TestCompositor()
        for _ in 0..<(Registry.maximumGlobals + 50) { server.addGlobal(WlOutput.self, version: 1) }
        let connection = try Connection.connect(to: server.socketPath)
        try connection.dispatch(until: { connection.registry.globals.count == Registry.maximumGlobals })
        try connection.roundtrip(timeout: .seconds(5))
        #expect(connection.registry.globals.count == Registry.maximumGlobals)
        #expect(connection.error == nil)
    }
}
