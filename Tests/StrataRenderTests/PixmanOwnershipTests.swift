import CPixman
import Glibc
@testable import StrataRender
import Testing

/// Counts how often pixman destroys images: each image under test gets a destroy function that
/// pixman calls once, when the last reference goes.
private final class DestroyCounter {
    private let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    init() { count.initialize(to: 0) }
    deinit { count.deallocate() }

    var value: Int { count.pointee }

    func watch(_ image: OpaquePointer?) {
        guard let image else { Issue.record("no image to watch"); return }
        pixman_image_set_destroy_function(image, { _, data in
            data?.assumingMemoryBound(to: Int.self).pointee += 1
        }, count)
    }
}

/// Every pixman image the render layer makes is released by its owner exactly once.
struct PixmanOwnershipTests {
    @Test func aPixmanImageReleasesItsOneReference() {
        let destroyed = DestroyCounter()
        var raw: OpaquePointer?
        do {
            let image = PixmanImage(solid: pixman_color_t(red: 0, green: 0, blue: 0, alpha: 0xffff))
            raw = image.raw
            destroyed.watch(raw)
            // A second reference, so a double release would destroy the image and show.
            _ = pixman_image_ref(raw)
        }
        #expect(destroyed.value == 0, "released more than once")
        pixman_image_unref(raw)
        #expect(destroyed.value == 1, "not released")
    }

    @Test func aBitmapReleasesItsImageOnce() throws {
        let destroyed = DestroyCounter()
        do {
            let bitmap = try Bitmap(width: 4, height: 4)
            destroyed.watch(bitmap.pixmanImage)
            #expect(destroyed.value == 0)
        }
        #expect(destroyed.value == 1)
    }

    @Test func aCoverageMaskReleasesTheImageItOutgrows() {
        let destroyed = DestroyCounter()
        do {
            let mask = CoverageMask()
            #expect(mask.reserve(width: 8, height: 8))
            destroyed.watch(mask.image)
            #expect(mask.reserve(width: 4, height: 4))
            #expect(destroyed.value == 0, "an image large enough is kept")
            #expect(mask.reserve(width: 16, height: 8))
            #expect(destroyed.value == 1)
            destroyed.watch(mask.image)
        }
        #expect(destroyed.value == 2)
    }

    @Test func aGlyphReleasesItsImageOnce() throws {
        let destroyed = DestroyCounter()
        do {
            let memory = try #require(calloc(4, 4))
            let glyph = try #require(GlyphBitmap(owning: memory, width: 4, height: 4, stride: 4, left: 0, top: 4, isColor: false))
            destroyed.watch(glyph.mask)
            #expect(glyph.colorImage == nil)
        }
        #expect(destroyed.value == 1)
    }

    /// The first colour is kept apart from the others (one colour is the rule); each is made
    /// once, and all are released with the draw's sources.
    @Test func textSourcesReleaseEachColourOnce() {
        let destroyed = DestroyCounter()
        do {
            var sources = SolidSources(opacity: 0.5)
            let colours: [Color] = [.black, .white, Color(red: 1, green: 0, blue: 0)]
            let images = colours.map { sources.source(for: $0) }
            for image in images { destroyed.watch(image) }
            #expect(colours.map { sources.source(for: $0) } == images, "each colour is made once")
            destroyed.watch(sources.opacityMask())
            #expect(sources.opacityMask() != nil)
            #expect(destroyed.value == 0)
        }
        #expect(destroyed.value == 4)
    }
}
