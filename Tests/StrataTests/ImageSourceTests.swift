import CoreTestSupport
import Dispatch
import Glibc
import RenderTestSupport
import Synchronization
import Testing
@testable import Strata

/// A cache key no other test uses: the shared cache outlives each test, and tests run at once.
private func uniqueKey(_ name: String) -> String { "\(name)-\(UInt64.random(in: 0...UInt64.max))" }

/// Where an image loader ran: on the thread the test runs on (the main actor's), or elsewhere.
/// It can block on a gate, and fail after it.
private final class CountingLoader: Sendable {
    private let testThread = pthread_self()
    private let here = Atomic<Int>(0), elsewhere = Atomic<Int>(0)
    private let bytes: [UInt8]
    private let failure: RenderError?
    private let gate: DispatchSemaphore?

    init(bytes: [UInt8], failing failure: RenderError? = nil, gate: DispatchSemaphore? = nil) {
        self.bytes = bytes
        self.failure = failure
        self.gate = gate
    }

    var onTestThread: Int { here.load(ordering: .acquiring) }
    var onWorkers: Int { elsewhere.load(ordering: .acquiring) }

    func load() throws -> [UInt8] {
        if pthread_equal(pthread_self(), testThread) != 0 {
            here.add(1, ordering: .releasing)
        } else {
            elsewhere.add(1, ordering: .releasing)
        }
        gate?.wait()
        if let failure { throw failure }
        return bytes
    }

    func source(key: String) -> ImageSource { .loader(key: key) { [self] in try load() } }
}

/// An error of the app's own, for a loader to throw.
private struct NoSuchPhoto: Error, Equatable {}

@MainActor
private final class FailureLog {
    var errors: [RenderError] = []
    func watch(_ view: ImageView) { view.onImageFailure = { [unowned self] in errors.append($0) } }
}

@MainActor
struct ImageSourceTests {
    private func view(_ source: ImageSource?, mode: ContentMode = .aspectFit, in scene: HeadlessScene,
                      frame: Rect = Rect(x: 10, y: 10, width: 40, height: 30)) -> ImageView {
        let view = ImageView(source: source, contentMode: mode)
        view.frame = frame
        scene.root.addSublayer(view)
        return view
    }

    private func expectSamePixels(_ scene: HeadlessScene, _ a: Rect, _ b: Rect, sourceLocation: SourceLocation = #_sourceLocation) {
        var differing = 0
        for y in 0..<Int(a.height) {
            for x in 0..<Int(a.width)
            where scene.pixel(Int(a.minX) + x, Int(a.minY) + y) != scene.pixel(Int(b.minX) + x, Int(b.minY) + y) {
                differing += 1
            }
        }
        #expect(differing == 0, "\(differing) pixels differ", sourceLocation: sourceLocation)
    }

    /// Bytes, a file and a loader each show the very pixels the decoded bitmap shows, in the
    /// view's content mode.
    @Test func aSourceShowsWhatItsImageShows() throws {
        let scene = HeadlessScene(width: 200, height: 60, background: Color(rgb: 0x202020))
        let picture = try quadrantImage(cornerDot: true, width: 24, height: 12)
        let png = try PNG.encode(picture)
        let folder = try PrivateDirectory.make(prefix: "strata-image-source")
        defer { _ = rmdir(folder) }
        let path = "\(folder)/picture.png"
        try PNG.write(picture, to: path)
        defer { _ = unlink(path) }
        let sources: [ImageSource] = [
            .bytes(png, key: uniqueKey("bytes")), .file(path),
            CountingLoader(bytes: png).source(key: uniqueKey("loader")),
        ]
        let frames = (0..<4).map { Rect(x: 5 + 48 * Double($0), y: 10, width: 40, height: 30) }
        let reference = ImageView(image: try PNG.decode(png), contentMode: .aspectFit)
        reference.frame = frames[0]
        scene.root.addSublayer(reference)
        let views = zip(sources, frames.dropFirst()).map { view($0, in: scene, frame: $1) }
        try scene.settle()
        #expect(views.allSatisfy { $0.contents != nil })
        for frame in frames.dropFirst() { expectSamePixels(scene, frames[0], frame) }
        // Aspect fit: 24×12 in 40×30 is 40×20, with the background above and below.
        #expect(scene.pixel(60, 12) == Color(rgb: 0x202020).premultipliedARGB)
    }

    /// Views showing one image at one size share one bitmap decoded at the size that fills them,
    /// made once and kept in the cache; each view copies its pixels.
    @Test func viewsOfOneImageAtOneSizeShareOneBitmapDecodedAtThatSize() throws {
        let scene = HeadlessScene(width: 200, height: 60, background: Color(rgb: 0x202020))
        let png = try PNG.encode(try quadrantImage(cornerDot: true, width: 96, height: 48))
        let source = ImageSource.bytes(png, key: uniqueKey("shared"))
        let frames = (0..<4).map { Rect(x: 5 + 48 * Double($0), y: 10, width: 40, height: 30) }
        // 96×48 filling 40×30 is decoded at 60×30, and cropped by the view.
        let reference = ImageView(image: try ImageDecoder.decode(png, width: 40, height: 30, mode: .aspectFill), contentMode: .aspectFill)
        reference.frame = frames[0]
        scene.root.addSublayer(reference)
        for frame in frames.dropFirst() { _ = view(source, mode: .aspectFill, in: scene, frame: frame) }
        try scene.settle()
        let shared = try #require(source.cachedImage(width: 40, height: 30, mode: .aspectFill), "no bitmap kept at the views' size")
        #expect(shared.width == 60 && shared.height == 30)
        #expect(source.cachedImage() == nil, "the full-size image was decoded")
        for frame in frames.dropFirst() { expectSamePixels(scene, frames[0], frame) }

        // Through the API: the same size and mode is the same bitmap; another fitted size is another.
        let cache = ImageCache()
        let first = try source.image(width: 40, height: 30, mode: .aspectFill, in: cache)
        #expect(try source.image(width: 40, height: 30, mode: .aspectFill, in: cache) === first)
        #expect(try source.image(width: 60, height: 10, mode: .aspectFill, in: cache) === first, "60×30 fills 60×10 too")
        let fit = try source.image(width: 40, height: 30, mode: .aspectFit, in: cache)
        #expect(fit !== first && fit.width == 40 && fit.height == 20)
        #expect(cache.count == 2, "one bitmap per fitted size, and no full-size one")
        #expect(throws: RenderError.self) { try source.image(width: 0, height: 30, mode: .aspectFill, in: cache) }
    }

    /// Rendering and measuring on workers decode; the main thread never does, even when a spec
    /// is solved on it: there the view measures as nothing, and is laid out again at the
    /// image's size once a worker has decoded it. The loader counts a call made on the test's
    /// thread, so the check can fail.
    @Test func decodingHappensOnWorkersOnly() throws {
        let scene = HeadlessScene(width: 120, height: 80)
        let loader = CountingLoader(bytes: try PNG.encode(try quadrantImage(width: 30, height: 16)))
        let source = loader.source(key: uniqueKey("spec"))
        let view = ImageView(source: source)
        scene.root.addSublayer(view)
        scene.root.layoutSpecHandler = { _ in .inset(EdgeInsets(all: 8), .stack(.vertical, alignItems: .start, [.layer(view)])) }
        let decodedHere = ImageCache.decodesOnCurrentThread

        try scene.settle(until: { view.contents != nil })
        #expect(view.frame == Rect(x: 8, y: 8, width: 30, height: 16))
        #expect(scene.pixel(9, 9) == Color.red.premultipliedARGB)
        #expect(loader.onTestThread == 0)
        #expect(loader.onWorkers == 1, "the render decoded again what a worker decoded")
        #expect(ImageCache.decodesOnCurrentThread == decodedHere)

        // The counts see a decode on this thread.
        let control = CountingLoader(bytes: try PNG.encode(try quadrantImage(width: 2, height: 2)))
        _ = try control.source(key: uniqueKey("control")).image()
        #expect(control.onTestThread == 1)
        #expect(ImageCache.decodesOnCurrentThread == decodedHere + 1)
    }

    /// Setting the source it has, or a source with the same key, renders nothing again; an
    /// image replaces a source and a source an image.
    @Test func anUnchangedSourceRendersNothingAgain() throws {
        let scene = HeadlessScene()
        let png = try PNG.encode(try quadrantImage(width: 20, height: 20))
        let key = uniqueKey("same")
        let view = view(.bytes(png, key: key), in: scene)
        try scene.settle()
        let statistics = scene.host.statistics
        view.source = .bytes(png, key: key)
        view.source = .loader(key: key) { [] }
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == statistics.displayTasksStarted)
        #expect(scene.host.statistics.transactionsCommitted == statistics.transactionsCommitted)

        view.image = try quadrantImage(width: 2, height: 2)
        #expect(view.source == nil)
        view.source = .bytes(png, key: key)
        #expect(view.image == nil)
        try scene.settle()
        // 20×20 fitted in 40×30 is 30×30 at x 15: its red quadrant.
        #expect(scene.pixel(20, 15) == Color.red.premultipliedARGB)
    }

    /// Each kind of failure shows the background and reaches `onImageFailure` once, on the main
    /// thread, with its code.
    @Test func failuresShowThePlaceholderAndAreReported() throws {
        let scene = HeadlessScene(width: 200, height: 60)
        let background = Color(rgb: 0x3366CC)
        let folder = try PrivateDirectory.make(prefix: "strata-image-source")
        defer { _ = rmdir(folder) }
        let huge: [UInt8] = {
            // A valid header claiming 16384 × 16384 pixels: more than the decoder allows.
            var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            header += [0, 0, 0x40, 0, 0, 0, 0x40, 0, 8, 6, 0, 0, 0] + [0, 0, 0, 0]
            return header
        }()
        let cases: [(ImageSource, RenderError.Code)] = [
            (.bytes(Array("not a png".utf8), key: uniqueKey("corrupt")), .unsupportedFormat),
            (.file("\(folder)/missing.png"), .io),
            (.file(folder), .io),
            (CountingLoader(bytes: [], failing: nil).source(key: uniqueKey("empty")), .unsupportedFormat),
            (.loader(key: uniqueKey("throws")) { throw NoSuchPhoto() }, .loadFailed),
            (.bytes(huge, key: uniqueKey("huge")), .imageTooLarge),
        ]
        var logs: [FailureLog] = []
        for (index, (source, _)) in cases.enumerated() {
            let view = view(source, in: scene, frame: Rect(x: 2 + 32 * Double(index), y: 10, width: 30, height: 30))
            view.backgroundColor = background
            let log = FailureLog()
            log.watch(view)
            logs.append(log)
        }
        try scene.settle()
        for (index, (_, code)) in cases.enumerated() {
            #expect(logs[index].errors.map(\.code) == [code], "case \(index)")
            #expect(scene.pixel(2 + 32 * index + 15, 25) == background.premultipliedARGB, "case \(index)")
        }
        #expect(logs[4].errors.first?.cause is NoSuchPhoto)

        // Failures are not cached: a new size renders and fails again, and says nothing more.
        for (index, _) in cases.enumerated() { (scene.root.sublayers[index] as? ImageView)?.frame.size.height = 20 }
        try scene.settle()
        #expect(logs.allSatisfy { $0.errors.count == 1 })
    }

    /// A source replaced while its loader still runs is never shown nor reported: its render is
    /// stale by the time it ends.
    @Test func aReplacedSourceIsNeitherShownNorReported() throws {
        let scene = HeadlessScene()
        let gate = DispatchSemaphore(value: 0)
        let first = CountingLoader(bytes: [], failing: RenderError(.io, "slow and broken"), gate: gate)
        let view = view(first.source(key: uniqueKey("first")), in: scene)
        view.backgroundColor = .black
        let log = FailureLog()
        log.watch(view)
        try scene.step(until: { first.onWorkers == 1 })

        let green = try Bitmap(width: 8, height: 8)
        green.clear(to: .green)
        view.source = .bytes(try PNG.encode(green), key: uniqueKey("second"))
        try scene.step(until: { view.contents != nil })
        gate.signal()
        try scene.settle()
        #expect(scene.pixel(30, 25) == Color.green.premultipliedARGB)
        #expect(log.errors.isEmpty)
    }
}

/// A row of a photo list: an image over a caption, declared as a spec.
private struct Photo: Identifiable, Equatable, Sendable {
    let id: Int
    let key: String
    static func == (lhs: Photo, rhs: Photo) -> Bool { lhs.id == rhs.id && lhs.key == rhs.key }
}

/// Loaders by key, shared with the cells, which are made by the list.
private let photoLoaders = Mutex<[String: CountingLoader]>([:])

@MainActor
private final class PhotoCell: ListCell, ListItemCell {
    let photo = ImageView(contentMode: .aspectFill)

    init() {
        super.init(reuseIdentifier: "photo")
        addSublayer(photo)
    }

    func configure(with item: Photo) {
        guard let loader = photoLoaders.withLock({ $0[item.key] }) else { return }
        photo.source = loader.source(key: item.key)
    }

    override func layoutSpec() -> LayoutSpec? {
        .inset(EdgeInsets(all: 4), .stack(.vertical, alignItems: .start, [.layer(photo)]))
    }
}

@MainActor
struct ImageSourceListTests {
    /// A list of cells whose specs hold an image source: workers measure them at the image's
    /// size, decoding each photo once, and the cells show them with no decode on the main thread.
    @Test func aListCellDecodesItsImageOnWorkersOnly() throws {
        let scene = HeadlessScene(width: 120, height: 300)
        let list = ListView()
        list.frame = Rect(x: 0, y: 0, width: 120, height: 300)
        list.estimatedItemHeight = 40
        scene.root.addSublayer(list)
        var photos: [Photo] = []
        var loaders: [CountingLoader] = []
        for id in 0..<6 {
            let image = try Bitmap(width: 20 + 4 * id, height: 10 + 6 * id)
            image.clear(to: .red)
            let loader = CountingLoader(bytes: try PNG.encode(image))
            let photo = Photo(id: id, key: uniqueKey("photo\(id)"))
            photoLoaders.withLock { $0[photo.key] = loader }
            photos.append(photo)
            loaders.append(loader)
        }
        let decodedHere = ImageCache.decodesOnCurrentThread
        let items = ListItems<PhotoCell>(list: list, items: photos)
        try scene.settle(until: { list.pendingPrelayouts == 0 && list.liveItems.allSatisfy { ($0.cell as? PhotoCell)?.photo.contents != nil } })

        #expect(list.liveItems.count == photos.count)
        for (index, cell) in list.liveItems {
            let cell = try #require(cell as? PhotoCell)
            #expect(cell.photo.frame.size == Size(width: Double(20 + 4 * index), height: Double(10 + 6 * index)))
            #expect(cell.frame.height == Double(10 + 6 * index) + 8)
            #expect(loaders[index].onTestThread == 0)
            #expect(loaders[index].onWorkers == 1, "item \(index) was decoded again")
        }
        #expect(ImageCache.decodesOnCurrentThread == decodedHere)
        #expect(list.statistics.specsSolvedWhileConfiguring == 0)
        let first = try #require(list.liveItems.first?.cell as? PhotoCell)
        #expect(scene.pixel(Int(first.frame.minX) + 6, Int(first.frame.minY) + 6) == Color.red.premultipliedARGB)
        withExtendedLifetime(items) {}
    }
}
