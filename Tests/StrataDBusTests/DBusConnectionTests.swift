import DBusTestSupport
import StrataPlatform
import Testing
@testable import StrataDBus

/// A peer on the same bus, served by the layer under test: it echoes, fails, stays silent, sends
/// too much, or vanishes, as each method asks.
@MainActor
private final class TestService {
    static let name = "org.strata.Test"
    static let path = "/org/strata/Test"
    static let interface = "org.strata.Test"

    let connection: DBusConnection
    /// Calls left unanswered by `Hold`.
    var held: [DBusIncomingCall] = []
    var owns = false

    init(bus: PrivateBus, loop: MainLoop) throws {
        connection = try DBusConnection(address: bus.address, loop: loop)
        try connection.exportObject(at: Self.path) { [unowned self] call in self.serve(call) }
        try connection.requestName(Self.name) { [unowned self] result in owns = (try? result.get()) == true }
        try pump(loop, until: { owns })
    }

    private func serve(_ call: DBusIncomingCall) {
        switch call.content.member {
        case "Echo": try? call.reply(call.content.values)
        case "Fail": try? call.replyError(name: "org.strata.Error.Refused", "refused: " + (call.content.values.first?.string ?? ""))
        case "Hold": held.append(call)
        case "Huge": try? call.reply([.string(String(repeating: "x", count: 1 << 20))])
        case "Many": try? call.reply([.array(element: .uint32, (0..<1000).map { .uint32($0) })])
        case "Vanish": connection.close()
        default: try? call.replyError(name: DBusErrorName.unknownMethod, "no such method")
        }
    }

    static func method(_ member: String) -> DBusMethod {
        DBusMethod(destination: name, path: path, interface: interface, member: member)
    }
}

@MainActor
struct DBusConnectionTests {
    let loop = MainLoop()

    /// Calls `member` and pumps the loop until the reply comes.
    private func call(_ client: DBusConnection, _ member: String, _ arguments: [DBusValue] = [],
                      timeout: Duration = .seconds(10), limits: DBusLimits = .standard) throws -> Result<DBusReply, DBusError> {
        var result: Result<DBusReply, DBusError>?
        try client.call(TestService.method(member), arguments, timeout: timeout, limits: limits) { result = $0 }
        try pump(loop, until: { result != nil })
        return try #require(result)
    }

    @Test func typedValuesMakeTheRoundTrip() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        let client = try DBusConnection(address: bus.address, loop: loop)
        let values: [DBusValue] = [
            .string("héllo, 世界"), .bool(true), .bool(false), .uint32(4_000_000_000), .int32(-7), .double(0.25), .byte(255),
            .int16(-300), .uint16(65535), .int64(-1 << 40), .uint64(1 << 63), .objectPath("/a/b"), .signature("a{sv}"),
            .variant(.variant(.uint32(1))),
            .stringVariantDictionary([("color-scheme", .uint32(1)), ("accent-color", .structure([.double(0.1), .double(0.2), .double(0.3)]))]),
            .stringArray(["a", "b"]), .array(element: .string, []), .array(element: .array(of: .int32), [.array(element: .int32, [.int32(1)])]),
            .structure([.string("s"), .double(1.5)]),
        ]
        let reply = try call(client, "Echo", values).get()
        #expect(reply.values == values)
        #expect(reply.sender == service.connection.uniqueName)
        #expect(reply.values[14].stringKeyedDictionary?["color-scheme"] == .variant(.uint32(1)))
        #expect(reply.values[13].unwrappingVariants() == .uint32(1))
        #expect(DBusValue.variant(.variant(.variant(.bool(true)))).unwrappingVariants(limit: 2) == nil)
    }

    @Test func aSubtreeServesEveryPathBelowItsPrefix() throws {
        let bus = try PrivateBus()
        let server = try DBusConnection(address: bus.address, loop: loop)
        var served: [String] = []
        let slot = try server.exportSubtree(under: "/org/strata/Tree") { call in
            served.append(call.content.path ?? "")
            try? call.reply([.string(call.content.path ?? "")])
        }
        let client = try DBusConnection(address: bus.address, loop: loop)
        let destination = try #require(server.uniqueName)
        func ask(_ path: String) throws -> Result<DBusReply, DBusError> {
            var result: Result<DBusReply, DBusError>?
            try client.call(DBusMethod(destination: destination, path: path, interface: "org.strata.Tree", member: "Where")) { result = $0 }
            try pump(loop, until: { result != nil })
            return try #require(result)
        }
        #expect(try ask("/org/strata/Tree/12").get().values == [.string("/org/strata/Tree/12")])
        #expect(try ask("/org/strata/Tree/a/b").get().values == [.string("/org/strata/Tree/a/b")])
        #expect(try ask("/org/strata/Tree").get().values == [.string("/org/strata/Tree")])
        // Paths beside the prefix are not the subtree's.
        #expect(throws: DBusError.self) { try ask("/org/strata/Treehouse").get() }
        #expect(served == ["/org/strata/Tree/12", "/org/strata/Tree/a/b", "/org/strata/Tree"])
        slot.cancel()
        #expect(throws: DBusError.self) { try ask("/org/strata/Tree/12").get() }
        #expect(served.count == 3)
    }

    @Test func aRemoteErrorKeepsItsName() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        defer { withExtendedLifetime(service) {} }
        let client = try DBusConnection(address: bus.address, loop: loop)
        let error = try #require(call(client, "Fail", [.string("no")]).failure)
        #expect(error.code == .remoteError)
        #expect(error.name == "org.strata.Error.Refused")
        #expect(error.message == "refused: no")
        let unknown = try #require(call(client, "Nothing").failure)
        #expect(unknown.isRemoteError(named: DBusErrorName.unknownMethod))
    }

    @Test func anUnansweredCallTimesOut() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        let client = try DBusConnection(address: bus.address, loop: loop)
        let started = ContinuousClock.now
        let error = try #require(call(client, "Hold", timeout: .milliseconds(200)).failure)
        #expect(error.code == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(service.held.count == 1)
    }

    @Test func aPeerThatVanishesMidCallIsAnErrorNotAHang() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        let client = try DBusConnection(address: bus.address, loop: loop)
        let error = try #require(call(client, "Vanish").failure)
        // The bus answers for the peer that left: the client's own connection is fine.
        #expect(error.isRemoteError(named: DBusErrorName.noReply))
        #expect(client.isOpen)
        #expect(!service.connection.isOpen)
        let gone = try #require(call(client, "Echo").failure)
        #expect(gone.isRemoteError(named: DBusErrorName.serviceUnknown))
    }

    @Test func repliesPastTheLimitsAreDroppedWhole() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        defer { withExtendedLifetime(service) {} }
        let client = try DBusConnection(address: bus.address, loop: loop)
        let huge = try #require(call(client, "Huge").failure)
        #expect(huge.code == .limitExceeded)
        let many = try #require(call(client, "Many", limits: DBusLimits(maximumValues: 100)).failure)
        #expect(many.code == .limitExceeded)
        let deep = try #require(call(client, "Echo", [.variant(.variant(.variant(.uint32(1))))], limits: DBusLimits(maximumDepth: 2)).failure)
        #expect(deep.code == .limitExceeded)
        // Within the limits the same replies are read.
        #expect(try call(client, "Many").get().values.first?.elements?.count == 1000)
        #expect(try call(client, "Huge", limits: DBusLimits(maximumStringBytes: 1 << 20)).get().values.first?.string?.utf8.count == 1 << 20)
    }

    @Test func badArgumentsAreRefusedBeforeSending() throws {
        let bus = try PrivateBus()
        let client = try DBusConnection(address: bus.address, loop: loop)
        func refused(_ arguments: [DBusValue], method: DBusMethod = TestService.method("Echo")) -> DBusError? {
            do {
                try client.call(method, arguments) { _ in Issue.record("a refused call was answered") }
                return nil
            } catch {
                return error
            }
        }
        #expect(refused([.string("a\0b")])?.code == .invalidArgument)
        #expect(refused([.array(element: .string, [.uint32(1)])])?.code == .invalidArgument)
        #expect(refused([.objectPath("not a path")])?.code == .invalidArgument)
        #expect(refused([.structure([])])?.code == .invalidArgument)
        #expect(refused([], method: DBusMethod(destination: "org.strata.Test", path: "/x", interface: "bad interface", member: "M"))?.code
            == .invalidArgument)
        #expect(throws: DBusError.self) { try client.subscribe(to: DBusMatchRule(arguments: [64: "x"])) { _ in } }
        #expect(throws: DBusError.self) { try client.subscribe(to: DBusMatchRule(arguments: [0: "it's"])) { _ in } }
    }

    @Test func signalsReachOnlyMatchingSubscriptions() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        let client = try DBusConnection(address: bus.address, loop: loop)
        var all: [DBusMessage] = [], filtered: [DBusMessage] = []
        try client.subscribe(to: DBusMatchRule(sender: TestService.name, interface: TestService.interface, member: "Changed")) {
            if case let .success(message) = $0 { all.append(message) }
        }
        try client.subscribe(to: DBusMatchRule(sender: TestService.name, interface: TestService.interface, member: "Changed",
                                               arguments: [0: "this"])) {
            if case let .success(message) = $0 { filtered.append(message) }
        }
        // A round trip: the bus has installed both matches once the echo returns.
        _ = try call(client, "Echo")
        try service.connection.emitSignal(path: TestService.path, interface: TestService.interface, member: "Changed", [.string("other")])
        try service.connection.emitSignal(path: TestService.path, interface: TestService.interface, member: "Changed", [.string("this")])
        try service.connection.emitSignal(path: TestService.path, interface: TestService.interface, member: "Other", [.string("this")])
        try pump(loop, until: { all.count == 2 && filtered.count == 1 })
        #expect(all.map { $0.values } == [[.string("other")], [.string("this")]])
        #expect(filtered.first?.path == TestService.path)
        #expect(filtered.first?.member == "Changed")
        #expect(filtered.first?.sender == service.connection.uniqueName)
    }

    @Test func aCancelledCallEndsOnceAndIsNotAnsweredLater() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        let client = try DBusConnection(address: bus.address, loop: loop)
        var results: [Result<DBusReply, DBusError>] = []
        let slot = try client.call(TestService.method("Hold")) { results.append($0) }
        try pump(loop, until: { service.held.count == 1 })
        slot.cancel()
        slot.cancel()
        try service.held[0].reply([.string("late")])
        _ = try call(client, "Echo")   // the late reply has arrived by now, and gone nowhere
        #expect(results.count == 1)
        #expect(results.first?.failure?.code == .cancelled)
    }

    @Test func aBusThatDiesEndsEveryPendingCall() throws {
        let bus = try PrivateBus()
        let service = try TestService(bus: bus, loop: loop)
        defer { withExtendedLifetime(service) {} }
        let client = try DBusConnection(address: bus.address, loop: loop)
        var lost: DBusError?
        client.onDisconnect = { lost = $0 }
        var result: Result<DBusReply, DBusError>?
        var signalError: DBusError?
        try client.subscribe(to: DBusMatchRule(member: "Anything")) { if case let .failure(error) = $0 { signalError = error } }
        try client.call(TestService.method("Hold")) { result = $0 }
        bus.kill()
        try pump(loop, until: { result != nil && lost != nil })
        #expect(result?.failure?.code == .disconnected)
        #expect(lost?.code == .disconnected)
        #expect(signalError?.code == .disconnected)
        #expect(!client.isOpen)
        #expect(throws: DBusError.self) { try client.call(TestService.method("Echo")) { _ in } }
    }

    @Test func noBusIsATypedError() throws {
        let directory = try PrivateDirectory.make(prefix: "strata-nobus")
        #expect { try DBusConnection(address: "unix:path=\(directory)/missing", loop: loop) } throws: { error in
            (error as? DBusError)?.code == .connectionFailed
        }
        #expect { try DBusConnection(address: "nonsense", loop: loop) } throws: { error in
            (error as? DBusError)?.code == .connectionFailed
        }
    }

    @Test func matchRulesQuoteTheirValues() {
        let rule = DBusMatchRule(sender: "org.a", path: "/p", interface: "org.i", member: "M", arguments: [1: "y", 0: "x"])
        #expect(rule.description == "type='signal',sender='org.a',path='/p',interface='org.i',member='M',arg0='x',arg1='y'")
        #expect(rule.problem == nil)
        #expect(DBusMatchRule(arguments: [0: "back\\slash"]).problem != nil)
    }
}

extension Result {
    /// The error, or nil for a success.
    var failure: Failure? { if case let .failure(error) = self { error } else { nil } }
}
