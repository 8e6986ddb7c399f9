/// A colour with straight (not premultiplied) sRGB components and alpha, each 0...1. A plain value;
/// any thread.
///
/// Components are stored as given; they are clamped (NaN counting as 0) only when the colour is
/// turned into pixels, so arithmetic on colours never loses information early.
public struct Color: Hashable, Sendable {
    /// The sRGB red component, 0...1, not premultiplied.
    public var red: Double
    /// The sRGB green component, 0...1, not premultiplied.
    public var green: Double
    /// The sRGB blue component, 0...1, not premultiplied.
    public var blue: Double
    /// Opacity, 0 (transparent) ... 1 (opaque).
    public var alpha: Double

    /// A colour from straight sRGB components and alpha, each 0...1, stored as given (clamped only
    /// when turned into pixels).
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// A colour from a hex triple such as `0xFF8800`; the top byte is ignored.
    public init(rgb: UInt32, alpha: Double = 1) {
        self.init(
            red: Double((rgb >> 16) & 0xFF) / 255,
            green: Double((rgb >> 8) & 0xFF) / 255,
            blue: Double(rgb & 0xFF) / 255,
            alpha: alpha
        )
    }

    /// Fully transparent black, alpha 0; the pixel value 0.
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
    /// Opaque black.
    public static let black = Color(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = Color(red: 1, green: 1, blue: 1)
    /// Opaque pure sRGB red (1, 0, 0).
    public static let red = Color(red: 1, green: 0, blue: 0)
    /// Opaque pure sRGB green (0, 1, 0).
    public static let green = Color(red: 0, green: 1, blue: 0)
    /// Opaque pure sRGB blue (0, 0, 1).
    public static let blue = Color(red: 0, green: 0, blue: 1)

    /// The same colour with its alpha replaced by `alpha` (not multiplied); the colour components
    /// stay as they are, since they are straight.
    public func withAlpha(_ alpha: Double) -> Color {
        Color(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// The premultiplied ARGB32 value (0xAARRGGBB) a pixel holding this colour contains: each
    /// component clamped to 0...1, the colour components multiplied by alpha, all rounded to the
    /// nearest of 256 steps.
    public var premultipliedARGB: UInt32 { premultiplied(scale: 1).argb }

    /// The colour as 8-bit premultiplied components with its alpha multiplied by `scale` (opacity,
    /// coverage). Computed from the straight components so that scaling rounds only once.
    func premultiplied(scale: Double) -> PremultipliedColor {
        let a = unitClamped(alpha) * unitClamped(scale)
        return PremultipliedColor(
            alpha: byte(a), red: byte(unitClamped(red) * a),
            green: byte(unitClamped(green) * a), blue: byte(unitClamped(blue) * a)
        )
    }
}

extension Color: CustomStringConvertible {
    public var description: String { "Color(r: \(red), g: \(green), b: \(blue), a: \(alpha))" }
}

/// A colour as it sits in a pixel: 8-bit components with red, green and blue already multiplied by
/// alpha, so each is at most `alpha`.
struct PremultipliedColor: Hashable, Sendable {
    var alpha: UInt8
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    var argb: UInt32 {
        UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    var isOpaque: Bool { alpha == 255 }
    var isClear: Bool { alpha == 0 }
}

/// `value` limited to 0...1, with NaN mapped to 0 so it can never reach an integer conversion.
@inline(__always)
func unitClamped(_ value: Double) -> Double {
    value > 0 ? (value < 1 ? value : 1) : 0
}

/// A 0...1 value as the nearest of 256 steps; out-of-range and NaN inputs are clamped first.
@inline(__always)
func byte(_ unit: Double) -> UInt8 {
    UInt8(unitClamped(unit) * 255 + 0.5)
}

extension Color {
    /// A colour from HSL: a hue in turns (0 red, 1/3 green, 2/3 blue), a saturation and a
    /// lightness (0 black, 0.5 the pure hue, 1 white), each 0...1.
    public init(hue: Double, saturation: Double = 1, lightness: Double, alpha: Double = 1) {
        let turn = hue.isFinite ? hue - hue.rounded(.down) : 0
        let light = lightness.isFinite ? min(max(lightness, 0), 1) : 0
        let saturation = saturation.isFinite ? min(max(saturation, 0), 1) : 0
        func channel(_ offset: Double) -> Double {
            let k = (offset + turn * 12).truncatingRemainder(dividingBy: 12)
            let a = saturation * min(light, 1 - light)
            return light - a * max(-1, min(k - 3, 9 - k, 1))
        }
        self.init(red: channel(0), green: channel(8), blue: channel(4), alpha: alpha)
    }
}
