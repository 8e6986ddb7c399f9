import Glibc
import StrataPlatform
import SystemPackage
import Testing

/// Pipe transfers as a clipboard uses them, against peers that misbehave: too much data, none
/// at all, never closing, never reading. Each ends with a typed error while the loop goes on.
@MainActor
struct PipeTransferTests {
    /// Runs the loop until `condition` holds; the idle timeouts here are short, so this waits
    /// for their events, not for a guess at how long they take.
    private func run(_ loop: MainLoop, until condition: () -> Bool) throws {
        for _ in 0..<2000 where !condition() { try loop.runOnce(timeout: .milliseconds(20)) }
        #expect(condition())
    }

    @Test func bytesArriveWhole() throws {
        let loop = MainLoop()
        let pipe = try PipeTransfer.makePipe()
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var received: Result<[UInt8], StrataError>?, sent: StrataError?? = .none
        PipeTransfer.receive(from: pipe.read, loop: loop, maximumBytes: 1 << 20, idleTimeout: .seconds(30)) { received = $0 }
        PipeTransfer.send(payload, to: pipe.write, loop: loop, idleTimeout: .seconds(30)) { sent = .some($0) }
        try run(loop, until: { received != nil && sent != nil })
        #expect(try received?.get() == payload)
        if case .some(.some(let error)) = sent { Issue.record("the send failed: \(error)") }
        #expect(PipeTransfer.inFlight == 0)
    }

    @Test func aFiftyMegabytePasteIsRefusedPastTheLimit() throws {
        let loop = MainLoop()
        let pipe = try PipeTransfer.makePipe()
        var received: Result<[UInt8], StrataError>?, sent: StrataError?? = .none
        PipeTransfer.receive(from: pipe.read, loop: loop, maximumBytes: 16 << 20, idleTimeout: .seconds(30)) { received = $0 }
        PipeTransfer.send([UInt8](repeating: 0x61, count: 50 << 20), to: pipe.write, loop: loop, idleTimeout: .seconds(30)) { sent = .some($0) }
        try run(loop, until: { received != nil && sent != nil })
        guard case .failure(let error)? = received else { Issue.record("50 MB were accepted"); return }
        #expect(error.code == .tooLarge)
        // The sender learns its reader left (EPIPE, not a SIGPIPE that would end the process).
        #expect(sent??.code == .systemCall)
        #expect(PipeTransfer.inFlight == 0)
    }

    @Test func aPeerThatNeverWritesOrNeverClosesTimesOut() throws {
        let loop = MainLoop()
        for writesFirst in [false, true] {
            let pipe = try PipeTransfer.makePipe()
            if writesFirst { _ = try pipe.write.writeAll(Array("partial".utf8)) }
            var received: Result<[UInt8], StrataError>?
            PipeTransfer.receive(from: pipe.read, loop: loop, maximumBytes: 1 << 20, idleTimeout: .milliseconds(50)) { received = $0 }
            // The loop keeps running other work while the transfer waits.
            var ticks = 0
            let timer = loop.addTimer(after: .milliseconds(1), repeating: .milliseconds(1)) { ticks += 1 }
            try run(loop, until: { received != nil })
            loop.cancelTimer(timer)
            guard case .failure(let error)? = received else { Issue.record("a silent peer's transfer succeeded"); return }
            #expect(error.code == .timedOut)
            #expect(ticks > 0)
            try pipe.write.close()
        }
    }

    @Test func aReaderThatNeverReadsTimesOutTheSender() throws {
        let loop = MainLoop()
        let pipe = try PipeTransfer.makePipe()
        var sent: StrataError?? = .none
        // More than a pipe holds, so the writer must wait on a reader that never comes.
        PipeTransfer.send([UInt8](repeating: 1, count: 4 << 20), to: pipe.write, loop: loop, idleTimeout: .milliseconds(50)) { sent = .some($0) }
        try run(loop, until: { sent != nil })
        #expect(sent??.code == .timedOut)
        try pipe.read.close()
    }
}
