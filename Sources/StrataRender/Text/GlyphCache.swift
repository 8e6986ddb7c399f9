import CFreeType
import CPixman
import Glibc
import Locking
import StrataPlatform
import Synchronization

/// A rasterized glyph: 8-bit coverage drawn in the text's colour, or premultiplied colour (an
/// emoji) drawn as it is, with its offset from the pen position. Immutable, so any number of
/// render workers may draw it at once.
public final class GlyphBitmap: Sendable {
    /// Columns, in device pixels.
    public let width: Int
    /// Rows, in device pixels.
    public let height: Int
    /// Bytes per row, a multiple of 4 as pixman's images need.
    let stride: Int
    /// From the pen position to the bitmap's left edge, in device pixels (negative when the ink
    /// starts left of the pen).
    public let left: Int
    /// Up from the baseline to the bitmap's top row, in device pixels (negative when the glyph lies
    /// wholly below the baseline).
    public let top: Int
    /// Whether the pixels are premultiplied ARGB colour (an emoji), drawn whatever the text's
    /// colour, rather than coverage.
    public let isColor: Bool
    nonisolated(unsafe) let bytes: UnsafeMutableRawPointer?
    /// A pixman A8 image over `bytes` for coverage, nil for colour, made once. It is validated
    /// here, on the thread that made it (pixman computes an image's flags on first use), so
    /// every later draw, on any thread, only reads it.
    var mask: OpaquePointer? { isColor ? nil : image.raw }
    /// A pixman `a8r8g8b8` image over `bytes` for colour, nil for coverage; validated like `mask`.
    var colorImage: OpaquePointer? { isColor ? image.raw : nil }
    nonisolated(unsafe) private let image: PixmanImage?

    /// What the glyph costs the cache: its rows (4 bytes a pixel for colour) and 256 of overhead.
    var byteCount: Int { stride * height + 256 }

    /// A glyph over `memory` (from `malloc`, freed with the glyph): `width` × `height` pixels at
    /// `stride`, coverage or colour. Nil when pixman cannot make its image (the memory is freed).
    init?(owning memory: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, left: Int, top: Int, isColor: Bool) {
        self.width = width
        self.height = height
        self.stride = stride
        self.left = left
        self.top = top
        self.isColor = isColor
        guard let image = PixmanImage(format: isColor ? PIXMAN_a8r8g8b8 : PIXMAN_a8, width: width, height: height,
                                      bits: memory, stride: stride) else {
            free(memory)
            return nil
        }
        image.validate(asMask: !isColor)
        bytes = memory
        self.image = consume image
    }

    /// A glyph with no ink (a space).
    private init(blankWidth width: Int, height: Int, left: Int, top: Int) {
        self.width = width
        self.height = height
        stride = (width + 3) & ~3
        self.left = left
        self.top = top
        isColor = false
        bytes = nil
        image = nil
    }

    /// A copy of FreeType's `bitmap`: grey or mono coverage, or premultiplied BGRA colour;
    /// other pixel modes become empty coverage. Scaled by `scale` when a bitmap strike stands in
    /// for the size asked for (`ColorGlyphs`), coverage too. Nil when memory runs out or the
    /// bitmap is absurd (a side past 32768 pixels, a pitch shorter than its row).
    convenience init?(copying bitmap: FT_Bitmap, left: Int, top: Int, scale: Double = 1) {
        let width = Int(bitmap.width), height = Int(bitmap.rows)
        guard width > 0, height > 0, let source = bitmap.buffer else {
            self.init(blankWidth: max(width, 0), height: max(height, 0), left: left, top: top)
            return
        }
        let mode = Int32(bitmap.pixel_mode)
        let isColor = mode == Int32(FT_PIXEL_MODE_BGRA.rawValue)
        let pitch = Int(bitmap.pitch)
        let rowBytes: Int
        switch mode {
        case Int32(FT_PIXEL_MODE_BGRA.rawValue): rowBytes = width * 4
        case Int32(FT_PIXEL_MODE_GRAY.rawValue): rowBytes = width
        case Int32(FT_PIXEL_MODE_MONO.rawValue): rowBytes = (width + 7) / 8
        default: rowBytes = 0
        }
        guard width <= 1 << 15, height <= 1 << 15, pitch.magnitude >= rowBytes else { return nil }
        let stride = isColor ? width * 4 : (width + 3) & ~3
        guard let memory = calloc(height, stride) else { return nil }
        for row in 0..<height {
            let from = source + (pitch >= 0 ? row * pitch : (height - 1 - row) * -pitch)
            let to = memory.advanced(by: row * stride).assumingMemoryBound(to: UInt8.self)
            switch mode {
            case Int32(FT_PIXEL_MODE_GRAY.rawValue), Int32(FT_PIXEL_MODE_BGRA.rawValue):
                to.update(from: from, count: rowBytes)
            case Int32(FT_PIXEL_MODE_MONO.rawValue):
                for x in 0..<width { to[x] = from[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 ? 255 : 0 }
            default:
                // Other modes (2- and 4-bit grey, LCD) are not drawn: an empty box, not a crash.
                break
            }
        }
        guard scale != 1 else {
            self.init(owning: memory, width: width, height: height, stride: stride, left: left, top: top, isColor: isColor)
            return
        }
        defer { free(memory) }
        guard let scaled = Self.scale(memory, width: width, height: height, stride: stride, left: left, top: top,
                                      isColor: isColor, by: scale) else { return nil }
        self.init(owning: scaled.memory, width: scaled.width, height: scaled.height, stride: scaled.stride,
                  left: scaled.left, top: scaled.top, isColor: isColor)
    }

    /// `memory`'s pixels scaled by `scale` into new memory, with pixman and the filter
    /// `ColorGlyphs` chose, and the new box's offset from the pen.
    private static func scale(_ memory: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, left: Int, top: Int,
                              isColor: Bool, by scale: Double)
        -> (memory: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, left: Int, top: Int)? {
        let format = isColor ? PIXMAN_a8r8g8b8 : PIXMAN_a8
        let box = ColorGlyphs.scaledBox(left: left, top: top, width: width, height: height, scale: scale)
        let newWidth = max(box.x1 - box.x0, 1), newHeight = max(box.y1 - box.y0, 1)
        let newStride = isColor ? newWidth * 4 : (newWidth + 3) & ~3
        guard newWidth <= 1 << 15, newHeight <= 1 << 15,
              let source = PixmanImage(format: format, width: width, height: height, bits: memory, stride: stride)
        else { return nil }
        guard ColorGlyphs.setScaling(source.raw, scale: scale, left: left, top: top), let target = calloc(newHeight, newStride) else { return nil }
        guard let destination = PixmanImage(format: format, width: newWidth, height: newHeight, bits: target, stride: newStride) else {
            free(target)
            return nil
        }
        // The source's coordinates are pen-relative device pixels, so the new box starts at its corner.
        pixman_image_composite32(PIXMAN_OP_SRC, source.raw, nil, destination.raw, Int32(box.x0), Int32(box.y0), 0, 0, 0, 0,
                                 Int32(newWidth), Int32(newHeight))
        return (target, newWidth, newHeight, newStride, box.x0, -box.y0)
    }

    deinit {
        // `image` is released after this, by its own deinit.
        free(bytes)
    }

    /// Whether there is nothing to draw (a space).
    public var isBlank: Bool { bytes == nil }
}

/// Rasterized glyphs shared by all render workers, bounded in bytes.
///
/// Split into shards, each behind its own lock, so workers rarely wait for each other; a hit is
/// a lock, a hash lookup and an unlock. Past the budget, a shard evicts with a second-chance
/// clock: glyphs used since the last pass survive it. Each `FontLibrary` keeps one (the shared
/// library's is `FontLibrary.shared.glyphCache`). Any thread.
public final class GlyphCache: Sendable {

    /// Lookups since the cache was made.
    public struct Counts: Equatable, Sendable {
        /// Lookups answered with a glyph already rasterized.
        public var hits = 0
        /// Lookups that had to rasterize (whether or not FreeType could).
        public var misses = 0
        /// Glyphs dropped to stay within the budget.
        public var evictions = 0
        /// Memory the kept glyphs take now, in bytes: each glyph's coverage rows plus 256 bytes of
        /// overhead. Never more than `capacityBytes`.
        public var bytes = 0
        /// Lookups of glyphs over `GlyphCache.maximumGlyphSide`, which are drawn from their
        /// outlines instead of being rasterized whole and cached.
        public var oversized = 0
        /// Counts as given; every value defaults to 0.
        public init(hits: Int = 0, misses: Int = 0, evictions: Int = 0, bytes: Int = 0, oversized: Int = 0) {
            self.hits = hits
            self.misses = misses
            self.evictions = evictions
            self.bytes = bytes
            self.oversized = oversized
        }

        /// Hits over lookups; 1 when there were none.
        public var hitRate: Double { hits + misses == 0 ? 1 : Double(hits) / Double(hits + misses) }
    }

    /// The budget in bytes, at least 64 KiB, split evenly between the shards; each shard evicts
    /// once it holds more than its share, and a glyph larger than a shard's share is drawn but
    /// not kept.
    public let capacityBytes: Int
    private let shards: [Locked<Shard>]
    private let hitCount = Atomic<Int>(0)
    private let missCount = Atomic<Int>(0)
    private let oversizedCount = Atomic<Int>(0)

    /// The widest or tallest glyph rasterized whole and cached, in device pixels: 1024, about a
    /// 1024 px em (a 64 pt font at scale 16). Larger glyphs (a 2048 pt font makes 32 768 px
    /// ones, 1 GiB of coverage) are drawn from their outlines, only where they cross the clip,
    /// each time; `Counts.oversized` counts them and the first is logged.
    public static let maximumGlyphSide = 1024

    private struct Key: Hashable {
        let face: Int
        let glyph: UInt32
        let pixelSize: Int32
        /// Synthetic bold (`FontFace.needsSyntheticBold`): the same glyph of the same face and
        /// size, drawn wider.
        let emboldened: Bool

        /// Two words instead of four fields: every glyph drawn from a new layout is hashed.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt(bitPattern: face)) << 32 ^ UInt64(glyph))
            hasher.combine(UInt64(UInt32(bitPattern: pixelSize)) << 1 | (emboldened ? 1 : 0))
        }
    }

    private struct Entry {
        let glyph: GlyphBitmap
        var referenced: Bool
    }

    private struct Shard {
        var entries: [Key: Entry] = [:]
        var clock: [Key] = []
        var hand = 0
        var bytes = 0
        var evictions = 0
    }

    /// An empty cache holding about `capacityBytes` (8 MiB by default; raised to 64 KiB when smaller).
    public init(capacityBytes: Int = 8 << 20) {
        self.capacityBytes = max(capacityBytes, 64 << 10)
        shards = (0..<16).map { _ in Locked(Shard()) }
    }

    /// The glyph's coverage at `pixelSize` (26.6 fixed point), emboldened when asked, rasterized
    /// on first use. Nil when FreeType cannot render it.
    func glyph(_ glyph: UInt32, of face: FontFace, pixelSize: Int32, emboldened: Bool = false) -> GlyphBitmap? {
        let key = Key(face: face.id, glyph: glyph, pixelSize: pixelSize, emboldened: emboldened)
        // A multiplicative mix picks the shard: the dictionary hashes the key again anyway, so a
        // second full hash here would double the cost of every lookup.
        let mixed = (UInt(bitPattern: face.id) &* 0x9E37_79B9_7F4A_7C15)
            ^ (UInt(glyph) &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt(UInt32(bitPattern: pixelSize)) ^ (emboldened ? 1 << 40 : 0)
        let shard = shards[Int((mixed ^ mixed >> 29) % UInt(shards.count))]
        if let hit = shard.withLock({ shard -> GlyphBitmap? in
            guard let entry = shard.entries[key] else { return nil }
            if !entry.referenced { shard.entries[key]?.referenced = true }
            return entry.glyph
        }) {
            hitCount.wrappingAdd(1, ordering: .relaxed)
            return hit
        }
        missCount.wrappingAdd(1, ordering: .relaxed)
        let rendered: GlyphBitmap
        switch face.rasterize(glyph: glyph, pixelSize: pixelSize, emboldened: emboldened, maximumSide: Self.maximumGlyphSide) {
        case .glyph(let bitmap): rendered = bitmap
        case .failed: return nil
        case .oversized:
            if oversizedCount.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
                FontLibrary.log.notice("glyph \(glyph) of \(LogText.quoted(face.familyName, limit: 64)) at \(pixelSize / 64) px is over \(Self.maximumGlyphSide) px; drawing it from its outline, uncached")
            }
            return nil
        }
        let budget = capacityBytes / shards.count
        // One glyph larger than the shard's share would push out everything else and still not fit.
        guard rendered.byteCount <= budget else { return rendered }
        return shard.withLock { shard in
            if let raced = shard.entries[key] { return raced.glyph }
            shard.entries[key] = Entry(glyph: rendered, referenced: false)
            // Just behind the hand, so a new glyph waits a whole turn of the clock before it can
            // go. Appended at the end it was next in line whenever the hand was near the end, and
            // a full cache evicted every new glyph before its second use: a new working set never
            // settled (13 % hits cycling 3 200 glyphs through a cache with room for five times them).
            if shard.hand > shard.clock.count { shard.hand = 0 }
            shard.clock.insert(key, at: shard.hand)
            shard.hand += 1
            shard.bytes += rendered.byteCount
            Self.evict(&shard, toFit: budget)
            return rendered
        }
    }

    private static func evict(_ shard: inout Shard, toFit budget: Int) {
        while shard.bytes > budget, shard.clock.count > 1 {
            if shard.hand >= shard.clock.count { shard.hand = 0 }
            let key = shard.clock[shard.hand]
            if shard.entries[key]?.referenced == true {
                shard.entries[key]?.referenced = false
                shard.hand += 1
                continue
            }
            shard.clock.remove(at: shard.hand)
            if let removed = shard.entries.removeValue(forKey: key) {
                shard.bytes -= removed.glyph.byteCount
                shard.evictions += 1
            }
        }
    }

    /// Hits and misses since the cache was made, evictions so far and bytes held now: a snapshot,
    /// taken shard by shard while other threads go on using the cache.
    public var counts: Counts {
        var counts = Counts(hits: hitCount.load(ordering: .relaxed), misses: missCount.load(ordering: .relaxed),
                            oversized: oversizedCount.load(ordering: .relaxed))
        for shard in shards {
            shard.withLock {
                counts.bytes += $0.bytes
                counts.evictions += $0.evictions
            }
        }
        return counts
    }

    /// Forgets every glyph (the counts stay).
    public func removeAll() {
        for shard in shards { shard.withLock { $0 = Shard() } }
    }
}

/// Each thread's pixman glyph cache, so that text is composited with
/// `pixman_composite_glyphs_no_mask`: one call for a run of glyphs, which finds pixman's fast
/// path once instead of once per glyph.
///
/// pixman's cache is not thread-safe (even compositing reorders it), and render workers share
/// `GlyphCache`, so every thread keeps its own copies of the glyphs it draws, keyed by face
/// serial, glyph and size. Bounded: past `budget` bytes, or when all threads' copies together
/// pass `processBudget`, a thread drops its copies together on its next draw and gathers them
/// again from the shared cache. Freed when the thread exits.
final class ThreadGlyphCache {
    /// Bytes of copied coverage a thread keeps (each glyph counted with 256 bytes of overhead).
    static let budget = 512 << 10
    /// Bytes all threads' copies may take before each drawing thread drops its own.
    static let processBudget = 4 << 20
    private static let processBytes = Atomic<Int>(0)

    private(set) var cache: OpaquePointer
    private var bytes = 0

    private init?() {
        guard let cache = pixman_glyph_cache_create() else { return nil }
        self.cache = cache
    }

    deinit {
        pixman_glyph_cache_destroy(cache)
        Self.processBytes.subtract(bytes, ordering: .relaxed)
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { value in
            guard let value else { return }
            Unmanaged<ThreadGlyphCache>.fromOpaque(value).release()
        }
        return made == 0 ? key : nil
    }()

    /// The calling thread's cache, made on first use; nil when pixman or pthreads fail.
    static var current: ThreadGlyphCache? {
        guard let key else { return nil }
        if let value = pthread_getspecific(key) {
            return Unmanaged<ThreadGlyphCache>.fromOpaque(value).takeUnretainedValue()
        }
        guard let made = ThreadGlyphCache() else { return nil }
        let retained = Unmanaged.passRetained(made)
        guard pthread_setspecific(key, retained.toOpaque()) == 0 else {
            retained.release()
            return nil
        }
        return made
    }

    /// Drops every copy when over budget. Call only while not frozen (between draws).
    func trim() {
        guard bytes > Self.budget || (bytes > 0 && Self.processBytes.load(ordering: .relaxed) > Self.processBudget),
              let fresh = pixman_glyph_cache_create() else { return }
        pixman_glyph_cache_destroy(cache)
        cache = fresh
        Self.processBytes.subtract(bytes, ordering: .relaxed)
        bytes = 0
    }

    /// pixman's keys for a glyph: a face's emboldened glyphs are pixman's font 2 × serial + 1,
    /// its others 2 × serial; the glyph key holds the size and the glyph index.
    private static func keys(face: Int, glyph: UInt32, pixelSize: Int32, emboldened: Bool)
        -> (font: UnsafeMutableRawPointer?, glyph: UnsafeMutableRawPointer?) {
        (UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: face) << 1 | (emboldened ? 1 : 0)),
         UnsafeMutableRawPointer(bitPattern: UInt(UInt32(bitPattern: pixelSize)) << 32 | UInt(glyph)))
    }

    /// The thread's copy of glyph `glyph` of face `face` at `pixelSize`, if it has one: a mask
    /// glyph drawn before on this thread, which needs nothing from the shared cache (only masks
    /// are copied, so a blank or colour glyph is never found here). Call between
    /// `pixman_glyph_cache_freeze` and `_thaw`.
    func cached(face: Int, glyph: UInt32, pixelSize: Int32, emboldened: Bool) -> UnsafeRawPointer? {
        let (fontKey, glyphKey) = Self.keys(face: face, glyph: glyph, pixelSize: pixelSize, emboldened: emboldened)
        return pixman_glyph_cache_lookup(cache, fontKey, glyphKey)
    }

    /// pixman's glyph for `bitmap` (glyph `glyph` of face `face` at `pixelSize`, emboldened or
    /// not), copied on first use. Call between `pixman_glyph_cache_freeze` and `_thaw`.
    func glyph(_ bitmap: GlyphBitmap, face: Int, glyph: UInt32, pixelSize: Int32, emboldened: Bool) -> UnsafeRawPointer? {
        let (fontKey, glyphKey) = Self.keys(face: face, glyph: glyph, pixelSize: pixelSize, emboldened: emboldened)
        if let found = pixman_glyph_cache_lookup(cache, fontKey, glyphKey) { return found }
        guard let mask = bitmap.mask else { return nil }
        // pixman's origin is the pen position within the glyph image.
        guard let inserted = pixman_glyph_cache_insert(cache, fontKey, glyphKey, Int32(-bitmap.left), Int32(bitmap.top), mask)
        else { return nil }
        bytes += bitmap.byteCount
        Self.processBytes.add(bitmap.byteCount, ordering: .relaxed)
        return inserted
    }
}
