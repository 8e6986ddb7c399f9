/// What text asks for: a family, a size in points, a weight and a slant. Fontconfig turns it
/// into a face and a fallback chain (`FontLibrary`).
public struct Font: Hashable, Sendable, CustomStringConvertible {
    /// A weight on the CSS scale (100 thin … 400 regular … 700 bold … 900 black).
    public struct Weight: Hashable, Sendable, Comparable {
        /// The CSS / OpenType weight, 1...1000.
        public let value: Int
        /// A weight of `value` on the CSS scale, clamped to 1...1000.
        public init(_ value: Int) { self.value = min(max(value, 1), 1000) }
        /// 300.
        public static let light = Weight(300)
        /// 400, the weight of body text.
        public static let regular = Weight(400)
        /// 500.
        public static let medium = Weight(500)
        /// 600.
        public static let semibold = Weight(600)
        /// 700.
        public static let bold = Weight(700)
        public static func < (lhs: Weight, rhs: Weight) -> Bool { lhs.value < rhs.value }
    }

    /// The family name asked of fontconfig, such as `DejaVu Sans`, or a generic name (`sans-serif`,
    /// `serif`, `monospace`, `system-ui`). An unknown family falls back to fontconfig's best match.
    public var family: String
    /// Points, 0...`maximumSize`; the layout's scale turns it into device pixels. Set values are
    /// clamped like `init`'s, so no size reaching the layout is NaN, negative or absurd.
    public var size: Double {
        didSet { size = Self.clampedSize(size) }
    }

    /// The largest size in points: 2048.
    public static let maximumSize = 2048.0

    /// `size` within 0...`maximumSize`, with NaN and infinities as 0.
    static func clampedSize(_ size: Double) -> Double {
        size.isFinite ? min(max(size, 0), maximumSize) : 0
    }
    /// How heavy the strokes are; fontconfig picks the nearest weight the family has. Semibold or
    /// more drawn in a face of medium weight or less (a family without bold, a CJK fallback, a
    /// pinned regular file) is emboldened, as GTK does (`FontFace.needsSyntheticBold(for:)`).
    public var weight: Weight
    /// Whether an italic face is asked for; fontconfig's closest match may be upright when the family
    /// has none.
    public var isItalic: Bool

    /// A font as described; `size` (points) is clamped to 0...2048, with NaN and infinities becoming 0.
    public init(family: String = Font.defaultFamily, size: Double = 14, weight: Weight = .regular, isItalic: Bool = false) {
        self.family = family
        self.size = Self.clampedSize(size)
        self.weight = weight
        self.isItalic = isItalic
    }

    /// The family used when none is named: DejaVu Sans (Debian's `fonts-dejavu-core`).
    public static let defaultFamily = "DejaVu Sans"

    /// The default family (`defaultFamily`) at `size` points and `weight`, upright.
    public static func system(size: Double, weight: Weight = .regular) -> Font { Font(size: size, weight: weight) }

    /// The same family, weight and slant at `size` points (clamped like `init`).
    public func withSize(_ size: Double) -> Font { Font(family: family, size: size, weight: weight, isItalic: isItalic) }

    public var description: String { "\(family) \(size)pt w\(weight.value)\(isItalic ? " italic" : "")" }
}
