import CPixman

/// Conversions into pixman's value types. Pure functions; any thread.
enum PixmanColor {
    /// pixman's 16-bit premultiplied colour for an 8-bit premultiplied one. Each byte is widened
    /// as `v * 257`, which pixman narrows back with `>> 8`: the pixel gets exactly these bytes, so
    /// an opaque fill equals `Color.premultipliedARGB`.
    static func make(_ color: PremultipliedColor) -> pixman_color_t {
        pixman_color_t(
            red: UInt16(color.red) * 257, green: UInt16(color.green) * 257,
            blue: UInt16(color.blue) * 257, alpha: UInt16(color.alpha) * 257)
    }

    /// A gradient stop colour: pixman interpolates stops unpremultiplied, 16 bits a channel.
    static func straight(_ color: Color, opacity: Double = 1) -> pixman_color_t {
        func wide(_ unit: Double) -> UInt16 { UInt16(unitClamped(unit) * 65535 + 0.5) }
        return pixman_color_t(
            red: wide(color.red), green: wide(color.green), blue: wide(color.blue),
            alpha: wide(unitClamped(color.alpha) * unitClamped(opacity)))
    }
}

/// `value` as pixman 16.16 fixed point, saturated to the representable range (about ±32768) and
/// with NaN as 0, so absurd geometry degrades instead of trapping in an integer conversion.
func pixmanFixed(_ value: Double) -> pixman_fixed_t {
    let scaled = value * 65536
    guard scaled == scaled else { return 0 }
    if scaled >= Double(Int32.max) { return Int32.max }
    if scaled <= Double(Int32.min) { return Int32.min }
    return Int32(scaled.rounded())
}

/// A pixman transform for the axis-aligned map `source = (a·x + b, c·y + d)` from destination to
/// source coordinates.
func pixmanTransform(a: Double, b: Double, c: Double, d: Double) -> pixman_transform_t {
    pixman_transform_t(matrix: (
        (pixmanFixed(a), 0, pixmanFixed(b)),
        (0, pixmanFixed(c), pixmanFixed(d)),
        (0, 0, pixman_fixed_t(65536))
    ))
}

/// A pixman transform for `transform`, mapping destination to source coordinates.
func pixmanTransform(_ transform: AffineTransform) -> pixman_transform_t {
    pixman_transform_t(matrix: (
        (pixmanFixed(transform.a), pixmanFixed(transform.c), pixmanFixed(transform.tx)),
        (pixmanFixed(transform.b), pixmanFixed(transform.d), pixmanFixed(transform.ty)),
        (0, 0, pixman_fixed_t(65536))
    ))
}

/// An integer box for pixman. Callers pass coordinates already clamped to a bitmap.
@inline(__always)
func pixmanBox(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> pixman_box32_t {
    pixman_box32_t(x1: Int32(x0), y1: Int32(y0), x2: Int32(x1), y2: Int32(y1))
}
