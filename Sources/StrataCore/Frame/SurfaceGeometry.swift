/// A surface's size in points and its scale: the one description of a surface's geometry, owned
/// by its `LayerHost`. Backends derive what they need from it (a Wayland buffer scale or a
/// viewport destination), so no second copy can disagree.
public struct SurfaceGeometry: Equatable, Sendable {
    /// The surface size in points.
    public private(set) var size: Size
    /// Device pixels per point.
    public private(set) var scale: Double

    /// The largest scale a surface may have.
    public static let maximumScale = 16.0

    /// The most device pixels a surface may have, 64 Mi (256 MiB a buffer): room for an 8K
    /// output, and a bound on what a compositor's configure can make a client allocate.
    public static let maximumPixels = 64 << 20

    /// A geometry from untrusted values: a scale that is not finite or not in 0…16 becomes 1, and
    /// a size that is not finite, negative or beyond `Bitmap.maximumDimension` pixels is clamped;
    /// then a size of more than `maximumPixels` is shrunk, keeping its aspect ratio, to fit.
    /// `isValid` is false when anything was changed.
    public init(size: Size, scale: Double) {
        let validScale = scale.isFinite && scale > 0 && scale <= Self.maximumScale ? scale : 1
        let limit = Double(Bitmap.maximumDimension) / validScale
        func clamp(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), limit) : 0 }
        var clamped = Size(width: clamp(size.width), height: clamp(size.height))
        let pixels = (clamped.width * validScale).rounded(.up) * (clamped.height * validScale).rounded(.up)
        if pixels > Double(Self.maximumPixels) {
            // Whole points, rounded down, so the rounded-up pixel count cannot creep back over.
            let factor = (Double(Self.maximumPixels) / pixels).squareRoot()
            clamped = Size(width: max((clamped.width * factor).rounded(.down) - 1, 1),
                           height: max((clamped.height * factor).rounded(.down) - 1, 1))
        }
        self.size = clamped
        self.scale = validScale
        isValid = self.size == size && self.scale == scale
    }

    /// Whether the values given to `init` were used as they were.
    public let isValid: Bool

    /// The buffer's width in device pixels.
    public var pixelWidth: Int { Int((size.width * scale).rounded(.up)) }
    /// The buffer's height in device pixels.
    public var pixelHeight: Int { Int((size.height * scale).rounded(.up)) }
    /// The whole buffer, in device pixels.
    public var pixelBounds: Rect { Rect(x: 0, y: 0, width: Double(pixelWidth), height: Double(pixelHeight)) }
    /// The whole surface, in points.
    public var bounds: Rect { Rect(origin: .zero, size: size) }
    /// The scale as a whole number, when it is one (what `wl_surface.set_buffer_scale` can express).
    public var integerScale: Int32? { scale == scale.rounded() && scale >= 1 ? Int32(scale) : nil }

    public static func == (lhs: SurfaceGeometry, rhs: SurfaceGeometry) -> Bool {
        lhs.size == rhs.size && lhs.scale == rhs.scale
    }
}
