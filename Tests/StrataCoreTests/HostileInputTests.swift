import CoreTestSupport
@testable import StrataCore
import StrataPlatform
import Testing

/// Values an attacker or a bug would pass: not finite, huge, negative, at the type's edges.
let hostileDoubles: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                1e300, -1e300, 1e9, -1e9, Double(Int.max), -0.0, .leastNonzeroMagnitude, 0]

/// Every public entry point of the core that takes a number: no trap, no hang, a frame still
/// comes (or a typed error, or a clamp with a logged problem).
@MainActor
struct HostileLayerValueTests {
    @Test(arguments: hostileDoubles)
    func layerGeometryAndDrawingProperties(value: Double) throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let layer = solidLayer(.red, Rect(x: 0, y: 0, width: 20, height: 20))
        let child = solidLayer(.blue, Rect(x: 2, y: 2, width: 5, height: 5))
        layer.addSublayer(child)
        scene.root.addSublayer(layer)
        try scene.settle()
        layer.frame = Rect(x: value, y: value, width: value, height: value)
        layer.bounds = Rect(x: value, y: -value, width: value, height: value)
        layer.cornerRadius = value
        layer.borderWidth = value
        layer.borderColor = .black
        layer.opacity = value
        layer.clipsToBounds = true
        child.frame = Rect(x: value, y: 1, width: 3, height: value)
        try scene.settle()
        _ = scene.root.hitTest(Point(x: value, y: value))
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 10)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.scroll(ScrollInput(deltaX: value, deltaY: value)))
        _ = child.convertToHost(Point(x: value, y: 0))
        // Back to sane values: the surface shows them.
        layer.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        layer.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        layer.opacity = 1
        layer.cornerRadius = 0
        layer.borderWidth = 0
        try scene.settle()
        #expect(scene.pixel(15, 15) == Color.red.premultipliedARGB)
    }

    @Test(arguments: hostileDoubles)
    func asyncLayerSizes(value: Double) throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let layer = AsyncLayer()
        let painter = Painter(color: .green)
        layer.delegate = painter
        layer.frame = Rect(x: 0, y: 0, width: value, height: value)
        scene.root.addSublayer(layer)
        try scene.settle()
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.green.premultipliedARGB)
    }

    /// A NaN, infinite or huge surface is clamped with a logged problem, and the host still
    /// commits frames (a NaN size used to leave a host that never committed).
    @Test(arguments: hostileDoubles)
    func surfaceGeometry(value: Double) throws {
        let scene = HeadlessScene(width: 60, height: 40)
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        scene.root.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10)))
        scene.host.resize(to: Size(width: value, height: value), scale: value)
        // A huge size clamps to a 16 384-pixel surface: not painted here, to spare a GiB.
        if scene.host.geometry.pixelWidth <= 4096 { try scene.settle() }
        scene.host.resize(to: Size(width: 60, height: value), scale: 1)
        if scene.host.geometry.pixelHeight <= 4096 { try scene.settle() }
        scene.host.resize(to: Size(width: 60, height: 40), scale: 1)
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.red.premultipliedARGB)
        if !value.isFinite || value < 0 || value > 1e6 {
            #expect(problems.contains { $0.code == .invalidSurfaceSize })
        }
    }

    @Test func aHostCreatedWithANaNSizeCommitsOnceResized() throws {
        let loop = MainLoop()
        let backend = HeadlessBackend()
        let host = LayerHost(size: Size(width: .nan, height: .nan), scale: .nan, backend: backend, loop: loop,
                             queues: RenderQueuePool(processorCount: 1))
        host.rootLayer.addSublayer(solidLayer(.red, Rect(x: 0, y: 0, width: 10, height: 10)))
        #expect(try backend.renderUntilIdle(timeout: .seconds(5)))
        host.resize(to: Size(width: 20, height: 20))
        #expect(try backend.renderUntilIdle(timeout: .seconds(5)))
        #expect(backend.presentedBitmap?.pixel(x: 5, y: 5) == Color.red.premultipliedARGB)
    }

    @Test(arguments: [Duration.zero, .seconds(-1), .seconds(Int64.max), .nanoseconds(1), .seconds(-Int64.max)])
    func displayLinkIntervals(interval: Duration) throws {
        let scene = HeadlessScene()
        scene.host.idleFrameInterval = interval
        #expect(scene.host.idleFrameInterval >= .milliseconds(1))
        var frames = 0
        let target = Painter(color: .red)
        scene.host.displayLink.add(target) { _, _ in frames += 1 }
        for _ in 0..<3 { try scene.loop.runOnce(timeout: .milliseconds(2)) }
        scene.host.onTick = {}
        scene.host.onTick = nil
        #expect(frames >= 1)
    }

    @Test func transactionsFromManyDistinctTargetsFlush() throws {
        let scene = HeadlessScene()
        var performed = 0
        var targets: [Painter] = []
        for _ in 0..<10_000 {
            let target = Painter(color: .red)
            targets.append(target)
            scene.transactions.commit(target, TransactionAction("x")) { _ in performed += 1 }
        }
        try scene.settle()
        #expect(performed == 10_000)
        #expect(!scene.transactions.hasPending)
    }
}

/// The bitmap pool holds at most its budget, whatever comes back to it.
struct BitmapPoolBudgetTests {
    @Test func aHostileStreamOfDistinctSizesStaysWithinTheBudget() throws {
        let budget = 1 << 20
        let pool = BitmapPool(capacityBytes: budget)
        var random = SeededRandom(seed: 11)
        for _ in 0..<3000 {
            let width = Int.random(in: 1...400, using: &random)
            let height = Int.random(in: 1...400, using: &random)
            pool.recycle(try Bitmap(width: width, height: height))
            #expect(pool.pooledBytes <= budget)
        }
        #expect(pool.pooledBytes > budget / 2, "the pool still keeps recent bitmaps")
    }

    @Test func aBitmapLargerThanTheBudgetIsNeverKept() throws {
        let pool = BitmapPool(capacityBytes: 1000)
        pool.recycle(try Bitmap(width: 20, height: 20))
        #expect(pool.pooledBytes == 0, "1 600 bytes exceed a 1 000-byte budget")
        let negative = BitmapPool(capacityBytes: -5)
        negative.recycle(try Bitmap(width: 1, height: 1))
        #expect(negative.pooledBytes == 0)
        #expect(negative.capacityBytes == 0)
    }

    @Test func theLeastRecentlyReturnedBitmapIsEvictedFirst() throws {
        let pool = BitmapPool(capacityBytes: 3 * (10 * 10 * 4 + BitmapPool.entryOverhead))
        let first = try Bitmap(width: 10, height: 10)
        let second = try Bitmap(width: 10, height: 10)
        let third = try Bitmap(width: 10, height: 10)
        let fourth = try Bitmap(width: 10, height: 10)
        for bitmap in [first, second, third, fourth] { pool.recycle(bitmap) }
        var handed: [ObjectIdentifier] = []
        for _ in 0..<4 { handed.append(ObjectIdentifier(try pool.acquire(width: 10, height: 10))) }
        #expect(handed.prefix(3) == [ObjectIdentifier(fourth), ObjectIdentifier(third), ObjectIdentifier(second)])
        #expect(!handed.contains(ObjectIdentifier(first)))
    }

    @Test func manyTinyBitmapsAreChargedForTheirOverhead() throws {
        let pool = BitmapPool(capacityBytes: 64 * BitmapPool.entryOverhead)
        for _ in 0..<10_000 { pool.recycle(try Bitmap(width: 1, height: 1)) }
        #expect(pool.pooledCount <= 64)
    }

    @Test func hostileAcquisitionsAreTypedErrors() {
        let pool = BitmapPool()
        for (width, height) in [(0, 1), (-1, 5), (Int.max, Int.max), (Int.min, 1), (1 << 20, 1 << 20)] {
            #expect(throws: RenderError.self) { try pool.acquire(width: width, height: height) }
            #expect(pool.render(width: width, height: height, scale: 1) { _ in } == nil)
        }
    }
}

/// The surface buffer pool keeps a bounded number of buffers whatever capacity it is given.
struct BufferPoolBoundTests {
    @Test(arguments: [Int.min, -1, 0, 1, 3, 1000, Int.max])
    func capacityIsClamped(capacity: Int) {
        var pool = BufferPool(capacity: capacity)
        #expect((1...BufferPool.maximumCapacity).contains(pool.capacity))
        var made = 0
        for _ in 0..<100 {
            if case .allocate = pool.acquire(width: 4, height: 4).acquisition { made += 1 }
        }
        #expect(made == pool.capacity)
    }
}

/// Damage regions take any rectangle: only finite, non-empty pixels are ever kept, within the
/// limit the caller gave (itself clamped).
struct HostileDamageTests {
    @Test(arguments: hostileDoubles)
    func anyRectangle(value: Double) {
        let bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        for limit in [Int.min, -1, 0, 1, 8, Int.max] {
            var clipped = DamageRegion(limit: limit)
            var unclipped = DamageRegion(limit: limit)
            for rect in [Rect(x: value, y: 0, width: 10, height: 10), Rect(x: 0, y: 0, width: value, height: value),
                         Rect(x: -value, y: value, width: value, height: -value), Rect(x: 5, y: 5, width: 5, height: 5)] {
                clipped.add(rect, within: bounds)
                unclipped.add(rect)
            }
            for rect in clipped.rects + unclipped.rects {
                #expect(rect.minX.isFinite && rect.minY.isFinite && rect.width.isFinite && rect.height.isFinite, "\(rect)")
                #expect(rect.width > 0 && rect.height > 0)
            }
            for rect in clipped.rects { #expect(rect.intersection(bounds) == rect) }
            #expect(clipped.rects.count <= DamageRegion.maximumLimit)
        }
        var many = DamageRegion(limit: .max)
        for index in 0..<10_000 { many.add(Rect(x: Double(index * 3), y: 0, width: 1, height: 1)) }
        #expect(many.rects.count <= DamageRegion.maximumLimit)
    }
}

/// Records what a layer was sent.
@MainActor
private final class EventRecorder: Layer {
    var presses = 0
    var cancels = 0
    var clickCounts: [Int] = []
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        presses += 1
        if case .mouse = event.source { clickCounts.append(event.clickCount) }
        return true
    }
    override func pointerCancelled(_ event: PointerEvent) { cancels += 1 }
}

/// The input router takes any event values: not-finite points are dropped, touches are capped,
/// and absurd click settings are clamped, so they neither trap nor count a click sequence forever.
@MainActor
struct HostileInputRouterTests {
    @Test func anyEventValues() throws {
        let scene = HeadlessScene(width: 100, height: 100)
        let target = EventRecorder()
        target.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        scene.root.addSublayer(target)
        let input = scene.host.input
        input.post(.pointerMoved(Point(x: 10, y: 10)), time: 0)
        for interval in [Duration.seconds(Int64.max), .seconds(-Int64.max), .zero] {
            input.doubleClickInterval = interval
            #expect(input.doubleClickInterval >= .zero && input.doubleClickInterval <= InputRouter.maximumDoubleClickInterval)
            for distance in hostileDoubles {
                input.doubleClickDistance = distance
                #expect(input.doubleClickDistance.isFinite)
                #expect((0...InputRouter.maximumDoubleClickDistance).contains(input.doubleClickDistance))
                for point in hostileDoubles.map({ Point(x: $0, y: 10) }) {
                    input.post(.pointerMoved(point), time: .max)
                    #expect(input.pointerLocation.map { $0.x.isFinite && $0.y.isFinite } ?? true, "a point that is not finite is dropped")
                    input.post(.pointerButton(.left, isPressed: true), time: 0)
                    input.post(.pointerButton(.left, isPressed: false), time: .max)
                    input.post(.scroll(ScrollInput(deltaX: point.x, deltaY: point.x)))
                }
            }
        }
        #expect(!target.clickCounts.isEmpty)
        // Presses 0 ms apart at one place, under the largest interval and distance, still count
        // up only while the sequence lasts: a press past the interval starts again at 1.
        input.doubleClickInterval = .seconds(Int64.max)
        input.doubleClickDistance = .infinity
        target.clickCounts = []
        for _ in 0..<3 {
            input.post(.pointerButton(.left, isPressed: true), time: 1_000)
            input.post(.pointerButton(.left, isPressed: false), time: 1_000)
        }
        input.post(.pointerButton(.left, isPressed: true), time: 1_000 + 5_001)
        input.post(.pointerButton(.left, isPressed: false), time: 1_000 + 5_001)
        let counts = Array(target.clickCounts.suffix(4))
        let first = counts.first ?? 0
        #expect(counts == [first, first + 1, first + 2, 1])

        // 104 fingers on the layer: only `maximumTouches` are tracked, and only they are cancelled.
        target.presses = 0
        for id in [Int32.min, -1, 0, Int32.max] + (1...100).map(Int32.init) {
            input.post(.touchDown(id: id, at: Point(x: 10, y: 10)))
            input.post(.touchMoved(id: id, to: Point(x: .nan, y: .infinity)))
        }
        #expect(target.presses == input.maximumTouches)
        input.post(.touchCancelled)
        #expect(target.cancels == input.maximumTouches)
        input.post(.pointerExited)
        try scene.settle()
    }
}
