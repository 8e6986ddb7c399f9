import CPixman
import Glibc

/// High-quality downscaling: each output pixel the average of the source pixels it covers (a box
/// filter over the area, through pixman's separable convolution), as photo viewers shrink
/// pictures. Bilinear filtering, what `Canvas` draws with, reads only the 2×2 pixels nearest each
/// output pixel and so aliases badly below half size.
enum Resampling {
    /// `image` shrunk to `width`×`height`, each side on its own; `image` itself when that is its
    /// size. A side larger than the image's is stretched bilinearly (decoders never ask for it).
    /// - Throws: `invalidSize` or `outOfMemory` for a size `Bitmap` refuses.
    static func downscaled(_ image: Bitmap, width: Int, height: Int) throws(RenderError) -> Bitmap {
        if image.width == width, image.height == height { return image }
        let output = try Bitmap(width: width, height: height)
        guard let source = PixmanImage(over: image) else {
            throw RenderError(.outOfMemory, "pixman could not wrap a \(image.width)×\(image.height) image to scale it")
        }
        // Source pixels per output pixel, per axis.
        let scaleX = Double(image.width) / Double(width), scaleY = Double(image.height) / Double(height)
        var transform = pixman_transform()
        pixman_transform_init_scale(&transform, fixed(scaleX), fixed(scaleY))
        _ = pixman_image_set_transform(source.raw, &transform)
        pixman_image_set_repeat(source.raw, PIXMAN_REPEAT_PAD)
        if scaleX > 1 || scaleY > 1 {
            // Box reconstruction sampled by a box as wide as one output pixel: the area average.
            // Four bits of subpixel phases keep it exact enough at any ratio.
            var count: Int32 = 0
            guard let parameters = pixman_filter_create_separable_convolution(
                &count, fixed(max(scaleX, 1)), fixed(max(scaleY, 1)),
                PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, 4, 4)
            else {
                throw RenderError(.outOfMemory, "pixman could not make a filter to scale \(image.width)×\(image.height) to \(width)×\(height)")
            }
            defer { free(parameters) }
            _ = pixman_image_set_filter(source.raw, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, parameters, count)
        } else {
            _ = pixman_image_set_filter(source.raw, PIXMAN_FILTER_BILINEAR, nil, 0)
        }
        image.beginReading()
        output.beginWriting()
        pixman_image_composite32(PIXMAN_OP_SRC, source.raw, nil, output.pixmanImage, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
        output.endWriting()
        image.endReading()
        return output
    }

    private static func fixed(_ value: Double) -> pixman_fixed_t { pixman_fixed_t((value * 65536).rounded()) }
}
