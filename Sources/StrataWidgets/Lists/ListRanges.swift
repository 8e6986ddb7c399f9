/// How far a range reaches beyond the viewport, in screens (viewport heights), after Texture's
/// ASRangeTuningParameters: ahead in the scroll direction, and behind.
public struct ListRangeTuning: Sendable, Equatable {
    /// Screens ahead of the viewport, in the direction of scrolling; checked as `init` says.
    public var leadingScreens: Double { didSet { leadingScreens = Self.valid(leadingScreens) } }
    /// Screens behind it; checked as `init` says.
    public var trailingScreens: Double { didSet { trailingScreens = Self.valid(trailingScreens) } }

    /// A range of `leadingScreens` ahead and `trailingScreens` behind (negative and non-finite
    /// values count as 0; at most 20 screens each way).
    public init(leadingScreens: Double, trailingScreens: Double) {
        self.leadingScreens = Self.valid(leadingScreens)
        self.trailingScreens = Self.valid(trailingScreens)
    }

    private static func valid(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 20) : 0 }

    /// Texture's default display range: one screen ahead, a quarter behind.
    public static let display = ListRangeTuning(leadingScreens: 1, trailingScreens: 0.25)
    /// Texture's default preload range: two screens ahead, half a screen behind.
    public static let preload = ListRangeTuning(leadingScreens: 2, trailingScreens: 0.5)
}

/// The spans of content, in points along the scroll axis, in which a list keeps items in each
/// state, after Texture's interface states:
/// - **visible**: on screen;
/// - **display**: cells are configured and their layers render;
/// - **preload**: prelayout runs on workers (text measured, images decoded).
///
/// Each span contains the one before it. They lean towards the scroll direction and grow with
/// speed, so a fast fling still finds its cells ready.
public struct ListRanges: Sendable, Equatable {
    /// What is on screen.
    public var visible: Range<Double>
    /// Where cells are configured and rendered.
    public var display: Range<Double>
    /// Where items are laid out ahead of time.
    public var preload: Range<Double>

    /// The seconds of travel at the current speed by which the leading side grows; at most
    /// `maximumGrowth` more screens times each range's leading screens.
    public static let lookahead = 0.25
    /// The most a leading side grows with speed, as a multiple of its tuned size.
    public static let maximumGrowth = 2.0

    /// The ranges for a viewport at `offset` of `length` points, moving in `direction` (-1
    /// towards the start, 1 towards the end; 0 counts as 1) at `speed` points per second,
    /// within content of `contentLength`.
    public static func compute(offset: Double, length: Double, contentLength: Double, direction: Double, speed: Double,
                               display: ListRangeTuning, preload: ListRangeTuning) -> ListRanges {
        let length = length.isFinite ? max(length, 0) : 0
        let offset = offset.isFinite ? offset : 0
        let content = contentLength.isFinite ? max(contentLength, 0) : 0
        let forward = !(direction < 0)
        let growth = 1 + min(abs(speed.isFinite ? speed : 0) * lookahead / max(length, 1), maximumGrowth)
        func span(_ tuning: ListRangeTuning) -> Range<Double> {
            let ahead = tuning.leadingScreens * length * growth
            let behind = tuning.trailingScreens * length
            let start = offset - (forward ? behind : ahead)
            let end = offset + length + (forward ? ahead : behind)
            let low = min(max(start, 0), content), high = min(max(end, 0), content)
            return low..<max(low, high)
        }
        let visible = span(ListRangeTuning(leadingScreens: 0, trailingScreens: 0))
        // Each range contains the smaller ones, whatever the tuning says.
        let shown = span(display), loaded = span(preload)
        let preloaded = min(loaded.lowerBound, shown.lowerBound)..<max(loaded.upperBound, shown.upperBound)
        return ListRanges(visible: visible, display: shown, preload: preloaded)
    }
}
