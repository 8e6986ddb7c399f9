import CHarfBuzz

/// An OpenType feature turned on or off for a run of text, as HarfBuzz applies it: tabular
/// figures, small capitals, ligatures off…
///
/// ```swift
/// style.features = [.tabularFigures, .ligatures(false)]
/// ```
public struct FontFeature: Hashable, Sendable, CustomStringConvertible {
    /// The four-letter OpenType tag, packed big-endian as HarfBuzz's `hb_tag_t` is.
    public let tag: UInt32
    /// 0 turns the feature off, 1 on; features with alternates take the alternate's number.
    public let value: UInt32

    /// The feature `tag` (four printable ASCII characters, such as "tnum") set to `value`; nil
    /// for any other tag.
    public init?(_ tag: String, value: UInt32 = 1) {
        let bytes = Array(tag.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        self.tag = bytes.reduce(0) { $0 << 8 | UInt32($1) }
        self.value = value
    }

    private init(tag: UInt32, value: UInt32) {
        self.tag = tag
        self.value = value
    }

    /// The tag as text.
    public var tagName: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: tag >> $0) }, as: UTF8.self)
    }

    public var description: String { value == 1 ? tagName : "\(tagName)=\(value)" }

    /// Figures of one width (`tnum`), for columns of numbers and counters that must not jitter.
    public static let tabularFigures = FontFeature("tnum")!
    /// Proportional figures (`pnum`).
    public static let proportionalFigures = FontFeature("pnum")!
    /// Small capitals from lowercase (`smcp`).
    public static let smallCapitals = FontFeature("smcp")!
    /// Slashed zero (`zero`).
    public static let slashedZero = FontFeature("zero")!

    /// Standard and contextual ligatures (`liga`, `clig`) on or off.
    public static func ligatures(_ enabled: Bool) -> [FontFeature] {
        [FontFeature("liga", value: enabled ? 1 : 0)!, FontFeature("clig", value: enabled ? 1 : 0)!]
    }

    /// Kerning (`kern`) on or off.
    public static func kerning(_ enabled: Bool) -> FontFeature { FontFeature("kern", value: enabled ? 1 : 0)! }
}

/// The features a run is shaped with, as a shaping-cache key. At most `maximumCount` are kept:
/// a style is copied into every cache key, so its size is bounded.
struct TextFeatures: Hashable, Sendable {
    static let maximumCount = 32
    let features: [FontFeature]

    init(_ features: [FontFeature] = []) {
        self.features = Array(features.prefix(Self.maximumCount))
    }

    /// Calls `body` with the features as HarfBuzz takes them, each over the whole run.
    func withHarfBuzzFeatures<Result>(_ body: (UnsafeBufferPointer<hb_feature_t>) -> Result) -> Result {
        let converted = features.map { hb_feature_t(tag: $0.tag, value: $0.value, start: 0, end: UInt32.max) }
        return converted.withUnsafeBufferPointer(body)
    }
}
