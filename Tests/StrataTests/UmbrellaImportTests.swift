import Strata
import Testing

/// The public API is reachable through `import Strata` alone. This file imports nothing else, so
/// it stops compiling if Strata no longer re-exports a module whose types its API uses, such as
/// swift-system's `FileDescriptor` and `Errno`.
@MainActor
struct UmbrellaImportTests {
    @Test func aLoopSourceNeedsOnlyStrata() throws {
        let loop = MainLoop()
        let pipe = try FileDescriptor.pipe()
        var received: MainLoop.Events = []
        let token = try loop.addSource(pipe.readEnd) { events in received = events }
        _ = try pipe.writeEnd.writeAll([42])
        // The byte is already there: this returns at once (the timeout only guards a failure).
        try loop.runOnce(timeout: .seconds(10))
        #expect(received.contains(.readable))
        loop.removeSource(token)
        try pipe.readEnd.close()
        try pipe.writeEnd.close()
    }

    @Test func errorsNameTheirErrnoThroughStrata() {
        let error = StrataError(.systemCall, "read failed", cause: SystemCallError("read", errno: Errno.badFileDescriptor))
        #expect(error.errno == Errno.badFileDescriptor)
    }
}
