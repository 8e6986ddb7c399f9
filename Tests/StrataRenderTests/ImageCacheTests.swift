import Dispatch
import Foundation
import StrataPlatform
import StrataRender
import Synchronization
import Testing

struct ImageCacheTests {
    /// PNG data of a `side × side` image of one opaque colour.
    private func png(_ rgb: UInt32, side: Int = 10) throws -> [UInt8] {
        let bitmap = try Bitmap(width: side, height: side)
        bitmap.clear(to: Color(rgb: rgb))
        return try PNG.encode(bitmap)
    }

    /// A path in a fresh temporary directory, removed when `body` returns.
    private func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = URL(fileURLWithPath: try PrivateDirectory.make(prefix: "strata-image-cache"))
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private func expectError(_ code: RenderError.Code, _ body: () throws(RenderError) -> Bitmap,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let image = try body()
            Issue.record("expected \(code), got \(image)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func hitsAndMissesAreCounted() throws {
        let cache = ImageCache()
        let red = try png(0xFF0000), blue = try png(0x0000FF)
        let first = try cache.image(forKey: "red", data: red)
        #expect(cache.misses == 1 && cache.hits == 0)
        let second = try cache.image(forKey: "red", data: red)
        #expect(second === first)
        #expect(cache.misses == 1 && cache.hits == 1)
        let other = try cache.image(forKey: "blue", data: blue)
        #expect(other.pixel(x: 5, y: 5) == Color(rgb: 0x0000FF).premultipliedARGB)
        #expect(first.pixel(x: 5, y: 5) == Color(rgb: 0xFF0000).premultipliedARGB)
        #expect(cache.misses == 2 && cache.hits == 1)
        // Pixels, key bytes ("red", "blue") and the fixed overhead of each.
        #expect(cache.cachedBytes == first.byteCount + other.byteCount + 3 + 4 + 2 * ImageCache.entryOverhead)
        #expect(cache.count == 2)

        // A hit does not look at the data.
        #expect(try cache.image(forKey: "blue", data: []) === other)

        cache.removeAll()
        #expect(cache.cachedBytes == 0 && cache.count == 0)
        #expect(try cache.image(forKey: "red", data: red) !== first)
        #expect(cache.misses == 3 && cache.hits == 2)
    }

    /// A loader runs only on a miss; what it throws is `loadFailed` with the error as its cause
    /// (a `RenderError` passes through), and a failure is not cached. Peeking decodes nothing and
    /// counts nothing.
    @Test func aLoaderRunsOnlyOnAMiss() throws {
        struct Offline: Error {}
        let cache = ImageCache()
        let red = try png(0xFF0000)
        let calls = Atomic<Int>(0)
        let load = { () throws -> [UInt8] in
            calls.add(1, ordering: .relaxed)
            return red
        }
        #expect(cache.cachedImage(forKey: "red") == nil)
        #expect(cache.misses == 0 && cache.hits == 0)
        let first = try cache.image(forKey: "red", loading: load)
        #expect(try cache.image(forKey: "red", loading: load) === first)
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(cache.cachedImage(forKey: "red") === first)
        // Loaders and data share one namespace of keys.
        #expect(try cache.image(forKey: "red", data: []) === first)
        #expect(cache.misses == 1 && cache.hits == 2)

        do {
            _ = try cache.image(forKey: "offline") { throw Offline() }
            Issue.record("the loader's error was lost")
        } catch {
            #expect(error.code == .loadFailed)
            #expect(error.cause is Offline)
        }
        expectError(.io) { () throws(RenderError) in try cache.image(forKey: "io") { throw RenderError(.io, "gone") } }
        expectError(.unsupportedFormat) { () throws(RenderError) in try cache.image(forKey: "junk") { [1, 2, 3] } }
        #expect(cache.count == 1)

        let decoded = ImageCache.decodesOnCurrentThread
        _ = try cache.image(forKey: "blue") { try png(0x0000FF) }
        _ = try cache.image(forKey: "blue") { try png(0x0000FF) }
        #expect(ImageCache.decodesOnCurrentThread == decoded + 1)
    }

    @Test func filesAreCachedByPathApartFromKeys() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("green.png").path
            let green = try Bitmap(width: 6, height: 4)
            green.clear(to: Color(rgb: 0x00FF00))
            try PNG.write(green, to: path)

            let cache = ImageCache()
            let image = try cache.image(contentsOf: path)
            #expect(image.width == 6 && image.height == 4)
            #expect(image.pixel(x: 3, y: 2) == Color(rgb: 0x00FF00).premultipliedARGB)
            #expect(try cache.image(contentsOf: path) === image)
            #expect(cache.hits == 1 && cache.misses == 1)
            // The same string as a data key is another entry.
            let keyed = try cache.image(forKey: path, data: try png(0xFF0000))
            #expect(keyed !== image && keyed.width == 10)
            #expect(cache.misses == 2)
        }
    }

    /// 10×10 images are 400 bytes of pixels; with a one-letter key and the overhead, a cache of
    /// two such entries and a bit holds two.
    @Test func leastRecentlyUsedImagesAreEvictedByBytes() throws {
        let entry = 400 + 1 + ImageCache.entryOverhead
        let cache = ImageCache(capacityBytes: 2 * entry + 100)
        let a = try cache.image(forKey: "a", data: try png(0xFF0000))
        _ = try cache.image(forKey: "b", data: try png(0x00FF00))
        #expect(cache.cachedBytes == 2 * entry)
        // Touch a: b is now the least recent, and goes when c arrives.
        #expect(try cache.image(forKey: "a", data: []) === a)
        _ = try cache.image(forKey: "c", data: try png(0x0000FF))
        #expect(cache.cachedBytes == 2 * entry && cache.count == 2)
        let missesBefore = cache.misses
        #expect(try cache.image(forKey: "a", data: []) === a)
        #expect(try cache.image(forKey: "c", data: []).pixel(x: 0, y: 0) == Color(rgb: 0x0000FF).premultipliedARGB)
        #expect(cache.misses == missesBefore)
        // b was evicted: with no data to decode it now fails, and counts a miss.
        expectError(.unsupportedFormat) { () throws(RenderError) in try cache.image(forKey: "b", data: []) }
        #expect(cache.misses == missesBefore + 1)

        // A bigger image evicts as many as needed: 20×20 is 1600 bytes, over the capacity, so it
        // is returned but not kept, and evicts nothing.
        let big = try cache.image(forKey: "big", data: try png(0xFFFFFF, side: 20))
        #expect(big.width == 20 && cache.count == 2 && cache.cachedBytes == 2 * entry)
        // 15×15 is 900 bytes: both others go.
        _ = try cache.image(forKey: "mid", data: try png(0x808080, side: 15))
        #expect(cache.count == 1 && cache.cachedBytes == 900 + 3 + ImageCache.entryOverhead)
    }

    /// Keys count: a stream of tiny images under huge, distinct keys stays within the budget.
    @Test func hostileKeysAreCountedAgainstTheBudget() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let data = try png(0x123456, side: 1)
        for index in 0..<64 {
            let key = String(repeating: "k", count: 100_000) + "\(index)"
            _ = try cache.image(forKey: key, data: data)
            #expect(cache.cachedBytes <= cache.capacityBytes)
        }
        #expect(cache.count <= 10 && cache.count > 0)
        // A key larger than the whole budget is returned but never kept.
        let huge = String(repeating: "h", count: 2 << 20)
        #expect(try cache.image(forKey: huge, data: data).width == 1)
        #expect(cache.cachedBytes <= cache.capacityBytes)
        let misses = cache.misses
        _ = try cache.image(forKey: huge, data: data)
        #expect(cache.misses == misses + 1)
    }

    @Test func corruptAndTruncatedPNGsThrowAndAreNotCached() throws {
        let cache = ImageCache()
        var corrupt = try png(0x336699, side: 32)
        // Damage the compressed pixel data (after the 8-byte signature and the 25-byte IHDR).
        for index in 41..<(corrupt.count - 12) { corrupt[index] ^= 0x5A }
        let truncated = Array(try png(0x336699, side: 32).prefix(60))
        let notAPNG: [UInt8] = Array("definitely not a png".utf8)

        for (key, data, code) in [("corrupt", corrupt, RenderError.Code.corruptImage), ("truncated", truncated, .corruptImage),
                                  ("garbage", notAPNG, .unsupportedFormat)] {
            for _ in 0..<2 {
                expectError(code) { () throws(RenderError) in try cache.image(forKey: key, data: data) }
            }
        }
        #expect(cache.count == 0 && cache.cachedBytes == 0)
        #expect(cache.misses == 6 && cache.hits == 0)
    }

    @Test func anImageClaimingHugeDimensionsIsRefused() throws {
        let cache = ImageCache()
        let header = PNGBuilder.signature
            + PNGBuilder.ihdr(width: 100_000, height: 100_000, colorType: .rgba, bitDepth: 8)
            + PNGBuilder.chunk("IEND", [])
        expectError(.imageTooLarge) { () throws(RenderError) in try cache.image(forKey: "huge", data: header) }
        #expect(cache.count == 0)
    }

    @Test func aMissingFileThrowsIO() throws {
        let cache = ImageCache()
        let path = "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/image.png"
        expectError(.io) { () throws(RenderError) in try cache.image(contentsOf: path) }
        expectError(.io) { () throws(RenderError) in try cache.image(contentsOf: path) }
        #expect(cache.count == 0 && cache.misses == 2)
    }

    /// Many threads look up four keys at once: every answer has the right pixels, each key ends
    /// up as one shared bitmap (the first decode to finish wins), and hits + misses add up.
    @Test func concurrentLookupsAgree() throws {
        let cache = ImageCache()
        let colours: [UInt32] = [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00]
        let data = try colours.map { try png($0, side: 24) }
        let iterations = 400
        let wrong = Atomic<Int>(0)
        var identities = [ObjectIdentifier?](repeating: nil, count: iterations)
        identities.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots   // each iteration writes only its own slot
            DispatchQueue.concurrentPerform(iterations: iterations) { i in
                let which = i % colours.count
                guard let image = try? cache.image(forKey: "colour-\(which)", data: data[which]),
                      image.pixel(x: 12, y: 12) == Color(rgb: colours[which]).premultipliedARGB
                else {
                    wrong.add(1, ordering: .relaxed)
                    return
                }
                slots[i] = ObjectIdentifier(image)
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(cache.hits + cache.misses == iterations)
        #expect(cache.misses >= colours.count)
        #expect(cache.count == colours.count)
        #expect(cache.cachedBytes == colours.count * (24 * 24 * 4 + "colour-0".utf8.count + ImageCache.entryOverhead))
        for which in colours.indices {
            let seen = Set(stride(from: which, to: iterations, by: colours.count).map { identities[$0] })
            #expect(seen.count == 1 && seen.first! != nil, "key \(which) gave \(seen.count) bitmaps")
            let cached = try cache.image(forKey: "colour-\(which)", data: [])
            #expect(seen.first! == ObjectIdentifier(cached))
        }
    }
}
