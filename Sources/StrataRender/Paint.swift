/// What a shape is filled with. A plain value; any thread.
public enum Paint: Hashable, Sendable {
    /// One solid colour everywhere.
    case color(Color)
    /// Colours that change along a line, in the canvas's user space.
    case linearGradient(LinearGradient)
}

/// A gradient along the line from `start` to `end`, in the canvas's user space (it moves and
/// scales with the transform). Before `start` the first stop's colour continues, past `end` the
/// last one's. Colours are interpolated unpremultiplied, so a fade to transparent keeps its hue.
///
/// Degenerate input draws predictably: no stops draws nothing, one stop or `start == end` draws the
/// last stop's colour, stops with a NaN location are dropped, and locations are clamped to 0...1
/// and sorted.
public struct LinearGradient: Hashable, Sendable {
    /// A colour the gradient passes through at a given place along its line.
    public struct Stop: Hashable, Sendable {
        /// Position along the gradient line, 0 at `start` and 1 at `end`.
        public var location: Double
        /// The colour at `location`, straight alpha; between stops colours are interpolated
        /// unpremultiplied.
        public var color: Color

        /// A stop of `color` at `location`; the location is stored as given and clamped to 0...1
        /// only when drawn.
        public init(location: Double, color: Color) {
            self.location = location
            self.color = color
        }
    }

    /// Where location 0 lies, in user space (points before the canvas's transform).
    public var start: Point
    /// Where location 1 lies, in user space.
    public var end: Point
    /// The stops as given, in any order; they are cleaned up (NaN dropped, clamped, sorted) when drawn.
    public var stops: [Stop]

    /// A gradient from `start` to `end` (user space) through `stops`, kept as given.
    public init(start: Point, end: Point, stops: [Stop]) {
        self.start = start
        self.end = end
        self.stops = stops
    }

    /// Evenly spaced stops from `colors`.
    public init(start: Point, end: Point, colors: [Color]) {
        let last = Double(Swift.max(colors.count - 1, 1))
        self.init(
            start: start, end: end,
            stops: colors.enumerated().map { Stop(location: Double($0.offset) / last, color: $0.element) }
        )
    }

    /// The stops as drawn: NaN locations dropped, locations clamped to 0...1, in ascending order
    /// (stable, so equal locations keep their order and make a hard edge).
    var normalizedStops: [Stop] {
        stops.enumerated()
            .filter { !$0.element.location.isNaN }
            .map { (offset: $0.offset, stop: Stop(location: unitClamped($0.element.location), color: $0.element.color)) }
            .sorted { $0.stop.location != $1.stop.location ? $0.stop.location < $1.stop.location : $0.offset < $1.offset }
            .map(\.stop)
    }
}
