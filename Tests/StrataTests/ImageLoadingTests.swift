import CoreTestSupport
import Locking
import RenderTestSupport
import Testing
@testable import Strata

/// A key no other test uses: the shared cache outlives each test, and tests run at once.
private func freshKey(_ name: String) -> String { "\(name)-\(UInt64.random(in: 0...UInt64.max))" }

/// An app's loader the test answers by hand: each fetch waits until the test answers its key
/// with bytes or an error. It records which keys were asked for and which fetches were
/// cancelled; unless it ignores cancellation, a cancelled fetch stops waiting at once.
private final class HandLoader: ImageLoader {
    private struct State {
        var waiting: [String: CheckedContinuation<[UInt8], any Error>] = [:]
        var answers: [String: Result<[UInt8], any Error>] = [:]
        var asked: [String] = []
        var cancelled: Set<String> = []
    }

    // Locked, not Mutex: ThreadSanitizer understands its lock.
    private let state = Locked(State())
    private let ignoresCancellation: Bool

    init(ignoresCancellation: Bool = false) {
        self.ignoresCancellation = ignoresCancellation
    }

    var asked: [String] { state.withLock { $0.asked } }
    var cancelled: Set<String> { state.withLock { $0.cancelled } }

    func answer(_ key: String, with result: Result<[UInt8], any Error>) {
        let waiting = state.withLock { state in
            guard let waiting = state.waiting.removeValue(forKey: key) else {
                state.answers[key] = result
                return nil as CheckedContinuation<[UInt8], any Error>?
            }
            return waiting
        }
        waiting?.resume(with: result)
    }

    func bytes(forKey key: String) async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer = state.withLock { state -> Result<[UInt8], any Error>? in
                    state.asked.append(key)
                    if let answer = state.answers.removeValue(forKey: key) { return answer }
                    state.waiting[key] = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.cancelled.insert(key)
                return ignoresCancellation ? nil : state.waiting.removeValue(forKey: key)
            }
            waiting?.resume(throwing: CancellationError())
        }
    }
}

private struct Offline: Error {}

/// A solid bitmap, for placeholders.
private func solid(_ color: Color) throws -> Bitmap {
    let bitmap = try Bitmap(width: 4, height: 4)
    bitmap.clear(to: color)
    return bitmap
}

@MainActor
@Suite struct ImageLoadingTests {
    private let photo: [UInt8]

    init() throws {
        let picture = try Bitmap(width: 40, height: 30)
        picture.clear(to: .red)
        photo = try PNG.encode(picture)
    }

    private func view(_ source: ImageSource, in scene: HeadlessScene) throws -> ImageView {
        let view = ImageView(source: source, contentMode: .aspectFill)
        view.frame = Rect(x: 0, y: 0, width: 40, height: 30)
        view.placeholder = try solid(.blue)
        view.failurePlaceholder = try solid(.green)
        scene.root.addSublayer(view)
        return view
    }

    @Test func aSlowLoaderShowsThePlaceholderThenItsImage() throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let loader = HandLoader()
        let key = freshKey("slow")
        let view = try view(.loaded(key: key, by: loader), in: scene)
        try scene.step(until: { loader.asked == [key] && scene.pixel(20, 15) == Color.blue.premultipliedARGB })
        // Nothing waits for the loader: the host is idle, showing the placeholder.
        try scene.settle()
        #expect(scene.pixel(20, 15) == Color.blue.premultipliedARGB)
        loader.answer(key, with: .success(photo))
        try scene.step(until: { scene.pixel(20, 15) == Color.red.premultipliedARGB && scene.host.isIdle })
        #expect(loader.asked == [key], "fetched once")
        #expect(view.source?.needsFetch() == false)
    }

    @Test func aFailingLoaderShowsTheFailurePlaceholderAndReportsItsError() throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let loader = HandLoader()
        let key = freshKey("failing")
        let view = try view(.loaded(key: key, by: loader), in: scene)
        var errors: [RenderError] = []
        view.onImageFailure = { errors.append($0) }
        try scene.step(until: { loader.asked == [key] })
        loader.answer(key, with: .failure(Offline()))
        try scene.step(until: { !errors.isEmpty && scene.pixel(20, 15) == Color.green.premultipliedARGB })
        #expect(errors.map(\.code) == [.loadFailed] && errors.first?.cause is Offline)
        // Corrupt bytes from a loader fail as the bytes do.
        let corrupt = freshKey("corrupt")
        view.source = .loaded(key: corrupt, by: loader)
        try scene.step(until: { loader.asked.contains(corrupt) })
        loader.answer(corrupt, with: .success(Array("not an image".utf8)))
        try scene.step(until: { errors.count == 2 })
        #expect(errors.last?.code == .unsupportedFormat)
    }

    /// A loader that never answers holds nothing: a new source, or the view leaving the tree,
    /// cancels the fetch, and the view shows what it was given next.
    @Test func aLoaderThatNeverAnswersIsLeftBehind() throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let loader = HandLoader(ignoresCancellation: true)
        let key = freshKey("silent")
        let view = try view(.loaded(key: key, by: loader), in: scene)
        try scene.step(until: { loader.asked == [key] })
        view.source = .bytes(photo, key: freshKey("there"))
        try scene.step(until: { loader.cancelled == [key] && scene.pixel(20, 15) == Color.red.premultipliedARGB })
        // Leaving the tree cancels too.
        let other = freshKey("silent-too")
        view.source = .loaded(key: other, by: loader)
        try scene.step(until: { loader.asked.contains(other) })
        view.removeFromSuperlayer()
        try scene.step(until: { loader.cancelled.contains(other) })
    }

    /// A list fetches its items' images while they are in its preload range, and cancels the
    /// fetch of each item that leaves it; fetches already in the cache are not repeated.
    @Test func aListFetchesImagesInItsPreloadRangeAndCancelsThemAsItemsLeave() throws {
        let scene = HeadlessScene(width: 200, height: 200)
        let loader = HandLoader()
        let prefix = freshKey("row")
        let rows = PhotoRows(count: 200, height: 50, keys: { "\(prefix)-\($0)" }, loader: loader)
        let list = ListView()
        // Estimated as measured, so the ranges' items are known from their offsets.
        list.estimatedItemHeight = 50
        list.frame = Rect(x: 0, y: 0, width: 200, height: 200)
        list.dataSource = rows
        scene.root.addSublayer(list)
        list.reloadData()
        try scene.settle(until: { !loader.asked.isEmpty })
        let preload = itemsInPreload(list, height: 50)
        try scene.step(until: { Set(loader.asked) == Set(preload.map { "\(prefix)-\($0)" }) })
        #expect(preload.contains(0) && preload.count < 200)
        // Far down: the first items leave the preload range, and their fetches are cancelled.
        list.contentOffset = Point(x: 0, y: 5000)
        try scene.settle()
        try scene.step(until: { loader.cancelled.contains("\(prefix)-0") })
        let now = itemsInPreload(list, height: 50)
        #expect(loader.cancelled.isDisjoint(with: now.map { "\(prefix)-\($0)" }), "an item still in range was cancelled")
        #expect(now.allSatisfy { loader.asked.contains("\(prefix)-\($0)") })
    }
}

/// The items of `height` points each that the list's preload range overlaps.
@MainActor
private func itemsInPreload(_ list: ListView, height: Double) -> Set<Int> {
    let range = list.ranges.preload
    return Set(Int(range.lowerBound / height)..<Int((range.upperBound / height).rounded(.up)))
}

/// Rows showing one fetched image each, laid out from the model's height alone.
@MainActor
private final class PhotoRows: ListViewDataSource {
    let count: Int, height: Double
    let keys: (Int) -> String
    let loader: HandLoader

    init(count: Int, height: Double, keys: @escaping (Int) -> String, loader: HandLoader) {
        (self.count, self.height, self.keys, self.loader) = (count, height, keys, loader)
    }

    func numberOfItems(in list: ListView) throws -> Int { count }
    func list(_ list: ListView, prelayoutForItemAt index: Int) throws -> ListPrelayout {
        let height = height
        return ListPrelayout(id: index, imageSources: [.loaded(key: keys(index), by: loader)]) { _, _, _ in ListItemLayout(height: height) }
    }
    func list(_ list: ListView, cellForItemAt index: Int, layout: ListItemLayout) throws -> ListCell {
        list.dequeueReusableCell(withIdentifier: "row") ?? ListCell(reuseIdentifier: "row")
    }
}
