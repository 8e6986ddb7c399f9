import Dispatch
import Glibc
import Locking
import Testing
import StrataCore
import StrataRender
import StrataPlatform

/// A headless host on a private loop, transaction queue and two render queues.
@MainActor
public struct HeadlessScene {
    public let loop = MainLoop()
    public let backend = HeadlessBackend()
    public let transactions = TransactionQueue()
    public let host: LayerHost

    public init(width: Double = 120, height: Double = 80, scale: Double = 1, background: Color = .white) {
        host = LayerHost(size: Size(width: width, height: height), scale: scale, backend: backend, loop: loop,
                         transactions: transactions, queues: RenderQueuePool(processorCount: 2))
        host.backgroundColor = background
    }

    public var root: Layer { host.rootLayer }

    /// Runs until nothing is pending, answering frame requests at once.
    public func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        // A way out, not a measure: under AddressSanitizer on a loaded machine a deep tree's
        // first frame has taken more than 20 seconds.
        let idle = try backend.renderUntilIdle(timeout: .seconds(90))
        #expect(idle, "the host did not settle", sourceLocation: sourceLocation)
    }

    /// Runs until the host is idle and `condition` holds, for work the host does not track (a
    /// list's prelayout on workers) that brings more host work when it lands.
    public func settle(until condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for _ in 0..<4 {
            try step(until: { condition() && host.isIdle }, sourceLocation: sourceLocation)
            try settle(sourceLocation: sourceLocation)
        }
    }

    /// Steps the loop, answering frame requests, until `condition` holds.
    public func step(until condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for _ in 0..<4000 where !condition() {
            try loop.runOnce(timeout: .milliseconds(5))
            backend.signalFrame()
        }
        #expect(condition(), "condition not reached", sourceLocation: sourceLocation)
    }

    /// The presented frame's pixel (premultiplied ARGB).
    public func pixel(_ x: Int, _ y: Int) -> UInt32? { backend.presentedBitmap?.pixel(x: x, y: y) }

    /// The presented frame equals a full repaint of the tree: damage tracking missed nothing.
    public func expectPresentedFrameIsCompleteRepaint(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let presented = backend.presentedBitmap, let full = host.paintFullFrame() else {
            Issue.record("no frame", sourceLocation: sourceLocation)
            return
        }
        var mismatches = 0
        var first: (Int, Int, UInt32, UInt32)?
        for y in 0..<full.height {
            for x in 0..<full.width where presented.pixel(x: x, y: y) != full.pixel(x: x, y: y) {
                mismatches += 1
                if first == nil { first = (x, y, presented.pixel(x: x, y: y), full.pixel(x: x, y: y)) }
            }
        }
        #expect(mismatches == 0, "\(mismatches) pixels differ from a full repaint; first \(String(describing: first))",
                sourceLocation: sourceLocation)
    }
}

/// Paints its layer one colour, optionally waiting on a gate first, and records outcomes.
@MainActor
public final class Painter: AsyncLayerDelegate {
    public var color: Color
    /// When set, the next display task blocks on it before drawing.
    public var gate: DispatchSemaphore?
    /// How long every render takes, to model slow content.
    public var renderTime: useconds_t = 0
    public private(set) var outcomes: [(color: Color, finished: Bool)] = []
    public private(set) var displayThreads: [pthread_t] = []
    private let threads = ThreadLog()

    public init(color: Color) { self.color = color }

    public func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let color = self.color
        let gate = self.gate
        self.gate = nil
        let threads = self.threads
        let renderTime = self.renderTime
        return DisplayTask(
            display: { canvas, size, _ in
                threads.record()
                gate?.wait()
                if renderTime > 0 { usleep(renderTime) }
                canvas.fill(Rect(origin: .zero, size: size), color: color)
            },
            didDisplay: { [weak self] _, finished in self?.outcomes.append((color, finished)) })
    }

    public var renderThreads: [pthread_t] { threads.all }

    /// Blocks until `count` renders have begun drawing (and so passed their first cancellation
    /// check), so a test can cancel one mid-draw rather than before it starts.
    public func waitUntilDrawing(_ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) {
        for _ in 0..<5000 where threads.all.count < count { usleep(1000) }
        #expect(threads.all.count >= count, "render did not start", sourceLocation: sourceLocation)
    }
}

/// Threads display closures ran on.
public final class ThreadLog: Sendable {
    private let threads = Locked<[pthread_t]>([])
    public func record() { threads.withLock { $0.append(pthread_self()) } }
    public var all: [pthread_t] { threads.withLock { $0 } }
}

@MainActor
public func solidLayer(_ color: Color, _ frame: Rect) -> Layer {
    let layer = Layer()
    layer.frame = frame
    layer.backgroundColor = color
    return layer
}
