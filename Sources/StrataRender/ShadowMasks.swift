import CPixman
import Logging
import Synchronization

/// Blurred shadows of rounded rectangles, kept by shape so that a shadow is blurred once and then
/// only composited: a menu, a card or a window drawn again reuses its shadow, whatever else
/// changed. Each is nine-sliced: past its corners, a rounded rectangle's blurred shadow is the
/// same in every column (and every row), so one of the smallest size that has such a column is
/// stretched across any larger one. The key holds the size only up to that smallest size, so
/// every large box with the same corners and blur shares one mask. Bounded by bytes
/// (`RenderCaches.shadowMaskBudget`). Any thread.
final class ShadowMasks: Sendable {
    static let shared = ShadowMasks()
    static let log = Logger(label: "strata.render")

    struct Key: Hashable, Sendable {
        /// The shape's size in device pixels, each at most its stretchable minimum.
        let width: Int
        let height: Int
        /// The corner radius and the blur's standard deviation, in device pixels.
        let radius: Double
        let sigma: Double
        let color: Color
    }

    /// One blurred shadow, tinted, with the pieces that stretch it.
    final class Mask: Sendable {
        /// The shadow of the key's shape, `margin` pixels of blur around it, premultiplied.
        let image: Bitmap
        let margin: Int
        /// The column and row (in `image`) repeated across a wider and a taller shape; nil when
        /// the shape is too narrow (or short) to have one, and the image is drawn as it is.
        let stretchColumn: Int?
        let stretchRow: Int?
        /// That column and that row as images one pixel wide and one pixel tall, repeated.
        let column: Bitmap?
        let row: Bitmap?
        /// The pixel where both cross: what the middle of a large shadow is filled with.
        let centre: PremultipliedColor

        init(_ key: Key, margin: Int, stretchesX: Bool, stretchesY: Bool) throws(RenderError) {
            let image = try Bitmap(width: key.width + 2 * margin, height: key.height + 2 * margin)
            image.clear(to: .clear)
            let canvas = Canvas(bitmap: image)
            canvas.fill(Rect(x: Double(margin), y: Double(margin), width: Double(key.width), height: Double(key.height)),
                        color: key.color, cornerRadius: key.radius)
            BoxBlur.blur(image, sigma: key.sigma)
            self.image = image
            self.margin = margin
            let columnIndex = stretchesX ? image.width / 2 : nil
            let rowIndex = stretchesY ? image.height / 2 : nil
            stretchColumn = columnIndex
            stretchRow = rowIndex
            column = try columnIndex.map { x throws(RenderError) in try image.slice(x: x, y: 0, width: 1, height: image.height) }
            row = try rowIndex.map { y throws(RenderError) in try image.slice(x: 0, y: y, width: image.width, height: 1) }
            let centrePixel = image.pixel(x: columnIndex ?? image.width / 2, y: rowIndex ?? image.height / 2)
            centre = PremultipliedColor(alpha: UInt8(centrePixel >> 24), red: UInt8((centrePixel >> 16) & 0xFF),
                                        green: UInt8((centrePixel >> 8) & 0xFF), blue: UInt8(centrePixel & 0xFF))
        }

        var byteCount: Int { image.stride * image.height + (column?.stride ?? 0) * (column?.height ?? 0) + (row?.stride ?? 0) + 256 }
    }

    /// Whether a shadow too large to blur has been logged: a shape drawn every frame would
    /// otherwise log every frame.
    private let reportedOversize = Atomic<Bool>(false)

    /// Logs why a shadow is not drawn: every failure of memory, the first too-large shape.
    func report(_ error: RenderError) {
        if error.code == .imageTooLarge, reportedOversize.exchange(true, ordering: .relaxed) { return }
        Self.log.error("a shadow is not drawn: \(error)")
    }

    /// 4 MiB: a few dozen distinct shadows at typical blurs.
    static let defaultBudget = 4 << 20
    let masks = ByteBudgetCache<Key, Mask>(budget: ShadowMasks.defaultBudget)

    /// The widest or tallest mask blurred (its shape and blur together): 16 MiB at most. A
    /// shape whose corners and blur need more (a rounded box of well over a thousand pixels'
    /// radius) casts no shadow, rather than blurring hundreds of megabytes each frame.
    static let largestSide = 2048

    /// The pixels of blur around a shape (three box passes reach three box radii).
    static func margin(sigma: Double) -> Int { 3 * BoxBlur.radius(sigma: sigma) + 1 }

    /// The narrowest shape in which a column of the blurred shadow sees only straight edges
    /// within the blur's reach: two corners, a margin of blur each side, and the column itself.
    static func stretchableSize(radius: Double, margin: Int) -> Int {
        2 * (Int(radius.rounded(.up)) + 1 + margin) + 1
    }

    /// The key of the mask for a shape `width` × `height` device pixels: the size only up to the
    /// smallest that stretches.
    static func key(width: Int, height: Int, radius: Double, sigma: Double, color: Color) -> Key {
        let smallest = stretchableSize(radius: radius, margin: margin(sigma: sigma))
        return Key(width: min(width, smallest), height: min(height, smallest), radius: radius, sigma: sigma, color: color)
    }

    /// The mask for a shape `width` × `height` device pixels with corners of `radius`, blurred by
    /// `sigma`, in `color`; made on first use.
    func mask(width: Int, height: Int, radius: Double, sigma: Double, color: Color) throws(RenderError) -> Mask {
        let key = Self.key(width: width, height: height, radius: radius, sigma: sigma, color: color)
        if let cached = masks.value(for: key) { return cached }
        let margin = Self.margin(sigma: sigma)
        guard key.width + 2 * margin <= Self.largestSide, key.height + 2 * margin <= Self.largestSide else {
            throw RenderError(.imageTooLarge, "a shadow of \(key.width)×\(key.height) pixels with corners of \(radius) and a blur of "
                                + "\(margin) is over \(Self.largestSide) pixels a side to blur")
        }
        let smallest = Self.stretchableSize(radius: radius, margin: margin)
        // A shape exactly `smallest` wide shares the key of every wider one, so its mask can
        // stretch; drawn at that width it repeats its column once, which is the image as it is.
        let made = try Mask(key, margin: margin, stretchesX: key.width == smallest, stretchesY: key.height == smallest)
        return masks.insert(made, cost: made.byteCount, for: key)
    }
}

extension ShadowMasks.Mask {
    /// Composites the shadow of a shape `width` × `height` device pixels whose top-left corner is
    /// at (`x`, `y`) into `destination`, inside the device clip `[x0, x1) × [y0, y1)`, through
    /// `opacity`.
    func composite(into destination: Bitmap, shapeX x: Int, shapeY y: Int, width: Int, height: Int,
                   clip: (x0: Int, y0: Int, x1: Int, y1: Int), opacity: Double) {
        // Each axis in up to three spans: before the stretched column, the column repeated, after it.
        struct Span { let source: Int; let destination: Int; let length: Int; let stretched: Bool }
        func spans(origin: Int, length: Int, imageLength: Int, stretch: Int?) -> [Span] {
            guard let stretch else { return [Span(source: 0, destination: origin, length: imageLength, stretched: false)] }
            let repeated = length + 2 * margin - imageLength + 1
            return [Span(source: 0, destination: origin, length: stretch, stretched: false),
                    Span(source: stretch, destination: origin + stretch, length: repeated, stretched: true),
                    Span(source: stretch + 1, destination: origin + stretch + repeated, length: imageLength - stretch - 1, stretched: false)]
        }
        let columns = spans(origin: x - margin, length: width, imageLength: image.width, stretch: width + 2 * margin > image.width ? stretchColumn : nil)
        let rows = spans(origin: y - margin, length: height, imageLength: image.height, stretch: height + 2 * margin > image.height ? stretchRow : nil)
        guard let fadeImage = PixmanImage(solid: PixmanColor.make(Color(red: 0, green: 0, blue: 0, alpha: opacity).premultiplied(scale: 1)))
        else { return }
        let fade = opacity < 1 ? fadeImage.raw : nil
        let sources = [image, column, row].compactMap { $0 }
        for source in sources { source.beginReading() }
        destination.beginWriting()
        defer {
            destination.endWriting()
            for source in sources { source.endReading() }
        }
        for rowSpan in rows {
            for columnSpan in columns {
                let x0 = max(columnSpan.destination, clip.x0), x1 = min(columnSpan.destination + columnSpan.length, clip.x1)
                let y0 = max(rowSpan.destination, clip.y0), y1 = min(rowSpan.destination + rowSpan.length, clip.y1)
                guard x1 > x0, y1 > y0 else { continue }
                // A repeated strip is read from its own first pixel; the image from the clipped corner's.
                func composite(_ source: borrowing PixmanImage, repeats: Bool = false) {
                    if repeats { pixman_image_set_repeat(source.raw, PIXMAN_REPEAT_NORMAL) }
                    let sourceX = columnSpan.stretched ? 0 : columnSpan.source + (x0 - columnSpan.destination)
                    let sourceY = rowSpan.stretched ? 0 : rowSpan.source + (y0 - rowSpan.destination)
                    pixman_image_composite32(PIXMAN_OP_OVER, source.raw, fade, destination.pixmanImage,
                                             Int32(sourceX), Int32(sourceY), 0, 0, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
                }
                // Images made per piece, over the cached pixels: a repeat set on one never shows
                // to another thread drawing the same mask.
                switch (columnSpan.stretched, rowSpan.stretched) {
                case (false, false):
                    if let whole = PixmanImage(over: image) { composite(whole) }
                case (true, false):
                    if let column, let strip = PixmanImage(over: column) { composite(strip, repeats: true) }
                case (false, true):
                    if let row, let strip = PixmanImage(over: row) { composite(strip, repeats: true) }
                case (true, true):
                    if let middle = PixmanImage(solid: PixmanColor.make(centre)) { composite(middle) }
                }
            }
        }
    }
}

extension Bitmap {
    /// A copy of the pixels `[x, x + width) × [y, y + height)`, which must lie inside the bitmap.
    func slice(x: Int, y: Int, width: Int, height: Int) throws(RenderError) -> Bitmap {
        let copy = try Bitmap(width: width, height: height)
        for row in 0..<height {
            (copy.pixels + row * copy.stride).copyMemory(from: pixels + (y + row) * stride + x * 4, byteCount: width * 4)
        }
        return copy
    }
}
