import CPixman

/// One reference to a pixman image, released in `deinit` and nowhere else.
///
/// Non-copyable rather than a class: images are made on hot paths (a solid mask for each cell of
/// partial coverage, a pattern for each image drawn, each band of an oversized glyph), and a
/// non-copyable struct owns its reference with no allocation of its own. The compiler then
/// refuses a copy, so there is no second owner to unref it twice, and a value that is moved
/// (`consume`) is not released where it was.
///
/// `raw` is valid as long as this value is alive: hand it to pixman calls within the owner's
/// scope, never keep it beyond. Owners that must be shared (a glyph, a cached corner) are classes
/// that store one of these.
///
/// pixman never reads an image's pixels while releasing it (it frees only what it allocated), so
/// the pixels under a bits image may be freed before or after the image.
///
/// Threads: the thread that owns the value. Several threads may composite from the same image
/// once `validate(asMask:)` has run (see `GlyphBitmap`).
struct PixmanImage: ~Copyable {
    /// pixman's `pixman_image_t *`.
    let raw: OpaquePointer

    /// Takes over the reference `raw` holds; nil when pixman failed to make the image.
    init?(adopting raw: OpaquePointer?) {
        guard let raw else { return nil }
        self.raw = raw
    }

    /// An image of `format` over `width` × `height` pixels at `bits`, rows `stride` bytes apart
    /// (a multiple of 4). It does not own the pixels: the caller keeps them alive and frees them.
    init?(format: pixman_format_code_t, width: Int, height: Int, bits: UnsafeMutableRawPointer, stride: Int) {
        // Over pixels of our own, pixman's `_no_clear` variant is the same call: it clears only
        // pixels it allocates.
        self.init(adopting: pixman_image_create_bits(
            format, Int32(width), Int32(height), bits.assumingMemoryBound(to: UInt32.self), Int32(stride)))
    }

    /// A fresh image over `bitmap`'s pixels, for a transform, filter or repeat that must not show
    /// up in the bitmap's own `pixmanImage` (which other threads may be reading through).
    init?(over bitmap: Bitmap) {
        self.init(format: PIXMAN_a8r8g8b8, width: bitmap.width, height: bitmap.height, bits: bitmap.pixels,
                  stride: bitmap.stride)
    }

    /// A solid fill of `color` (16-bit premultiplied channels).
    init?(solid color: pixman_color_t) {
        var color = color
        self.init(adopting: pixman_image_create_solid_fill(&color))
    }

    deinit {
        pixman_image_unref(raw)
    }

    /// Composites this image once into a throwaway pixel, as a mask or as a source, so that
    /// pixman computes and stores its flags now, on this thread; afterwards compositing from it
    /// only reads it, so any number of threads may.
    func validate(asMask: Bool) {
        var pixel: UInt32 = 0
        // The pointer must stay valid while the scratch image lives, so everything happens inside.
        withUnsafeMutablePointer(to: &pixel) { pixel in
            guard let scratch = PixmanImage(format: PIXMAN_a8r8g8b8, width: 1, height: 1, bits: pixel, stride: 4)
            else { return }
            guard asMask else {
                pixman_image_composite32(PIXMAN_OP_OVER, raw, nil, scratch.raw, 0, 0, 0, 0, 0, 0, 1, 1)
                return
            }
            guard let white = PixmanImage(solid: pixman_color_t(red: 0xffff, green: 0xffff, blue: 0xffff, alpha: 0xffff))
            else { return }
            pixman_image_composite32(PIXMAN_OP_OVER, white.raw, raw, scratch.raw, 0, 0, 0, 0, 0, 0, 1, 1)
        }
    }
}

extension Optional where Wrapped == PixmanImage {
    /// The image's `raw` pointer, nil when there is none; valid while the optional holds it.
    var raw: OpaquePointer? {
        switch self {
        case .some(let image): image.raw
        case .none: nil
        }
    }
}

extension PixmanImage {
    /// A `PixmanImage` in a class, for the rare owner that must be copyable, such as a
    /// dictionary's value; the image is still released once, by its own deinit.
    final class Box {
        let image: PixmanImage

        init(_ image: consuming PixmanImage) {
            self.image = image
        }
    }
}
