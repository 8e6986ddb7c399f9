/// What text asks for: a family, a size in points, a weight and a slant. Fontconfig turns it
/// into a face and a fallback chain (`FontLibrary`).
public struct Font: Hashable, Sendable, CustomStringConvertible {
    /// A weight on the CSS scale (100 thin … 400 regular … 700 bold … 900 black).
    public struct Weight: Hashable, Sendable, Comparable {
        public let value: Int
        public init(_ value: Int) { self.value = min(max(value, 1), 1000) }
        public static let light = Weight(300)
        public static let regular = Weight(400)
        public static let medium = Weight(500)
        public static let semibold = Weight(600)
        public static let bold = Weight(700)
        public static func < (lhs: Weight, rhs: Weight) -> Bool { lhs.value < rhs.value }
    }

    public var family: String
    /// Points; the layout's scale turns it into device pixels.
    public var size: Double
    public var weight: Weight
    public var isItalic: Bool

    public init(family: String = Font.defaultFamily, size: Double = 14, weight: Weight = .regular, isItalic: Bool = false) {
        self.family = family
        self.size = size.isFinite ? min(max(size, 0), 2048) : 0
        self.weight = weight
        self.isItalic = isItalic
    }

    /// The family used when none is named: DejaVu Sans (Debian's `fonts-dejavu-core`).
    public static let defaultFamily = "DejaVu Sans"

    public static func system(size: Double, weight: Weight = .regular) -> Font { Font(size: size, weight: weight) }

    public func withSize(_ size: Double) -> Font { Font(family: family, size: size, weight: weight, isItalic: isItalic) }

    public var description: String { "\(family) \(size)pt w\(weight.value)\(isItalic ? " italic" : "")" }
}
