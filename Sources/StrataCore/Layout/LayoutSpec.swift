import StrataPlatform
import StrataRender

/// A layout declared as a tree of values, after Texture's `ASLayoutSpec`: stacks that follow CSS
/// flexbox, insets, overlays, backgrounds, ratios, centring, relative and absolute placement,
/// with measured items as the leaves.
///
/// `layout(in:)` is a pure function from the tree and a size range to a frame for every item.
/// It touches no layer, so it runs on any thread: an item measures itself through the closure it
/// was given (text through `TextLayout`, an image through its size). The frames are then applied
/// on the main thread.
///
/// ```swift
/// let row = LayoutSpec.stack(.horizontal, spacing: 8, alignItems: .center, [
///     .item(avatarKey, size: Size(width: 40, height: 40)),
///     .item(nameKey) { range in nameLayout.size(in: range) }.flex(grow: 1, shrink: 1),
/// ])
/// let frames = try LayoutSpec.inset(EdgeInsets(all: 12), row).layout(in: SizeRange(max: Size(width: 320, height: .infinity)))
/// ```
///
/// A spec is a value: it cannot contain itself, and sharing a subtree copies nothing.
public struct LayoutSpec: Sendable {
    indirect enum Kind: Sendable {
        case item(LayoutKey?, @Sendable (SizeRange) -> Size)
        case stack(StackOptions, [LayoutSpec])
        case inset(EdgeInsets, LayoutSpec)
        case overlay(LayoutSpec, LayoutSpec)
        case background(LayoutSpec, LayoutSpec)
        case ratio(Double, LayoutSpec)
        case relative(RelativeOptions, LayoutSpec)
        case absolute(AbsoluteSizing, [LayoutSpec])
    }

    let kind: Kind
    /// How the spec sizes itself within what its parent offers, and how a stack treats it.
    public private(set) var style = LayoutStyle()

    init(_ kind: Kind) { self.kind = kind }

    // MARK: Items

    /// A leaf whose size comes from `measure`, asked with the range it may take and called on
    /// whatever thread runs the layout. Its frame is reported under `key`. A size outside the
    /// range is brought inside it; a NaN component counts as the range's minimum.
    public static func item(_ key: LayoutKey, measure: @escaping @Sendable (SizeRange) -> Size) -> LayoutSpec {
        LayoutSpec(.item(key, measure))
    }

    /// A leaf with a fixed natural size (an image, an icon), reported under `key`.
    public static func item(_ key: LayoutKey, size: Size) -> LayoutSpec {
        LayoutSpec(.item(key, { _ in size }))
    }

    /// Empty space that takes the free space of a stack: a spacer with `grow` 1 by default, as
    /// SwiftUI's `Spacer`.
    public static func spacer(grow: Double = 1) -> LayoutSpec {
        LayoutSpec(.item(nil, { range in range.min })).flex(grow: grow, shrink: 0)
    }

    // MARK: Containers

    /// Children in a row or a column, laid out by CSS flexbox's algorithm: each child's `flex`
    /// basis, grow and shrink, its minimum and maximum sizes, `justify` along the axis, `alignItems`
    /// (or the child's `alignSelf`) across it, `spacing` between children, and, with `wrap`, lines
    /// `lineSpacing` apart placed by `alignContent`.
    ///
    /// As in Texture, children grow into the range's minimum along the axis and shrink to fit its
    /// maximum: a stack offered exactly 300 points fills them, and one offered up to 300 points
    /// is as long as its children.
    public static func stack(_ axis: LayoutAxis, spacing: Double = 0, justify: StackJustification = .start,
                             alignItems: StackAlignment = .stretch, wrap: Bool = false, lineSpacing: Double = 0,
                             alignContent: StackLineAlignment = .start, _ children: [LayoutSpec]) -> LayoutSpec {
        LayoutSpec(.stack(StackOptions(axis: axis, spacing: LayoutStyle.length(spacing), justify: justify, alignItems: alignItems,
                                       wrap: wrap, lineSpacing: LayoutStyle.length(lineSpacing), alignContent: alignContent), children))
    }

    /// `child` with `insets` of space around it.
    public static func inset(_ insets: EdgeInsets, _ child: LayoutSpec) -> LayoutSpec { LayoutSpec(.inset(insets, child)) }

    /// `overlay` laid over `child`, stretched to its size.
    public static func overlay(_ child: LayoutSpec, _ overlay: LayoutSpec) -> LayoutSpec { LayoutSpec(.overlay(child, overlay)) }

    /// `background` laid under `child`, stretched to its size; its items come first in the result,
    /// so they are below the child's.
    public static func background(_ child: LayoutSpec, _ background: LayoutSpec) -> LayoutSpec {
        LayoutSpec(.background(child, background))
    }

    /// `child` at `heightOverWidth` (0.5 is twice as wide as high), as large as the range allows.
    /// A ratio that is not finite and positive counts as 1; one beyond 10 000 either way, as
    /// 10 000 (or 1/10 000).
    public static func ratio(_ heightOverWidth: Double, _ child: LayoutSpec) -> LayoutSpec {
        LayoutSpec(.ratio(heightOverWidth.isFinite && heightOverWidth > 0 ? min(max(heightOverWidth, 1e-4), 1e4) : 1, child))
    }

    /// `child` centred in the space the range allows, on the axes `centering` names.
    public static func center(on centering: Centering = .both, sizing: RelativeSizing = .fill, _ child: LayoutSpec) -> LayoutSpec {
        relative(horizontal: centering.contains(.horizontal) ? .center : .start,
                 vertical: centering.contains(.vertical) ? .center : .start, sizing: sizing, child)
    }

    /// `child` at the start, centre or end of the space the range allows, on each axis.
    public static func relative(horizontal: RelativePosition = .start, vertical: RelativePosition = .start,
                                sizing: RelativeSizing = .fill, _ child: LayoutSpec) -> LayoutSpec {
        LayoutSpec(.relative(RelativeOptions(horizontal: horizontal, vertical: vertical, sizing: sizing), child))
    }

    /// Children placed at their own `position`, each at its own size.
    public static func absolute(sizing: RelativeSizing = .fill, _ children: [LayoutSpec]) -> LayoutSpec {
        LayoutSpec(.absolute(AbsoluteSizing(sizing: sizing), children))
    }

    // MARK: Style

    /// How the spec flexes in a stack: `grow` takes a share of free space, `shrink` a share of
    /// overflow (weighted by basis, as CSS does), and `basis` is its length before either.
    /// Negative, NaN and infinite factors count as 0.
    public func flex(grow: Double? = nil, shrink: Double? = nil, basis: LayoutLength? = nil) -> LayoutSpec {
        var copy = self
        if let grow { copy.style.grow = LayoutStyle.factor(grow) }
        if let shrink { copy.style.shrink = LayoutStyle.factor(shrink) }
        if let basis { copy.style.basis = basis }
        return copy
    }

    /// Where the spec sits across its stack's axis, in place of the stack's `alignItems`.
    public func alignSelf(_ alignment: StackAlignment) -> LayoutSpec {
        var copy = self
        copy.style.alignSelf = alignment
        return copy
    }

    /// The spec's own size and its limits, each `.auto` (the default) or a length; a fraction is
    /// of the parent's largest size on that axis, and counts as `.auto` where that is infinite.
    public func frame(width: LayoutLength? = nil, height: LayoutLength? = nil,
                      minWidth: LayoutLength? = nil, maxWidth: LayoutLength? = nil,
                      minHeight: LayoutLength? = nil, maxHeight: LayoutLength? = nil) -> LayoutSpec {
        var copy = self
        if let width { copy.style.width = width }
        if let height { copy.style.height = height }
        if let minWidth { copy.style.minWidth = minWidth }
        if let maxWidth { copy.style.maxWidth = maxWidth }
        if let minHeight { copy.style.minHeight = minHeight }
        if let maxHeight { copy.style.maxHeight = maxHeight }
        return copy
    }

    /// Where the spec's top-left corner goes inside an `absolute` spec; non-finite coordinates
    /// count as 0, and ones beyond `maximumLength` either way as that length.
    public func position(_ point: Point) -> LayoutSpec {
        var copy = self
        copy.style.position = Point(x: LayoutStyle.coordinate(point.x), y: LayoutStyle.coordinate(point.y))
        return copy
    }

    // MARK: Layout

    /// The longest length a layout works with, in points: longer lengths, sizes, spacings and
    /// positions count as this, so sums of them stay finite.
    public static let maximumLength = 10_000_000.0

    /// The deepest nesting `layout(in:)` accepts; deeper trees throw `LayoutError.tooDeep`.
    public static let maximumDepth = 256

    /// Lays the tree out within `range`: its size, and the frame of every item in its coordinate
    /// space, in the order the tree lists them (later items are above earlier ones). Throws when
    /// the tree is deeper than `maximumDepth` or names one key twice.
    public func layout(in range: SizeRange) throws(LayoutError) -> LayoutResult {
        var engine = try LayoutEngine(root: self)
        return engine.solve(in: range)
    }

    /// How many layouts this thread has solved, ever (each `layout(in:)`, and each range a
    /// layer's measurer solves its spec for). A list checks with it that configuring cells on
    /// the main thread solves nothing, because workers did; tests read it the same way.
    public static var solvesOnCurrentThread: Int { solveCount.value }

    static let solveCount = ThreadCounter()
}

/// Names an item of a layout, so its frame can be found in the result: usually the layer it
/// stands for (`LayoutKey(layer)`), or any integer.
public struct LayoutKey: Hashable, Sendable {
    enum Raw: Hashable, Sendable {
        case object(ObjectIdentifier)
        case number(Int)
    }

    let raw: Raw

    /// The key of `object`, such as a layer; it names the object only while the object lives.
    public init(_ object: AnyObject) { raw = .object(ObjectIdentifier(object)) }

    /// A key by number.
    public init(_ number: Int) { raw = .number(number) }
}

/// A length in a layout: automatic, a number of points, or a fraction of the parent's size.
public enum LayoutLength: Hashable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// Decided by the content, or by the container.
    case auto
    /// A number of points; negative and NaN counts as 0, infinite as `.auto`, and beyond
    /// `LayoutSpec.maximumLength` as that length.
    case points(Double)
    /// A fraction of the parent's largest size on the same axis (0.5 is half); `.auto` where that
    /// is infinite, and negative or NaN counts as 0.
    case fraction(Double)

    /// A number of points, so `frame(width: 40)` reads as it should.
    public init(integerLiteral value: Int) { self = .points(Double(value)) }
    /// A number of points, so `frame(width: 40.5)` reads as it should.
    public init(floatLiteral value: Double) { self = .points(value) }

    /// The length in points against a parent of `parent` points, or nil for automatic.
    func resolved(against parent: Double) -> Double? {
        switch self {
        case .auto: return nil
        case .points(let value):
            return value.isFinite ? Swift.min(Swift.max(value, 0), LayoutSpec.maximumLength) : (value.isNaN ? 0 : nil)
        case .fraction(let value):
            guard parent.isFinite else { return nil }
            let points = (value.isFinite ? Swift.max(value, 0) : 0) * parent
            return points.isFinite ? Swift.min(points, LayoutSpec.maximumLength) : nil
        }
    }
}

/// The two axes of a layout.
public enum LayoutAxis: Hashable, Sendable {
    /// Left to right.
    case horizontal
    /// Top to bottom.
    case vertical
}

/// Where a stack puts its children along its axis when they leave space free (CSS
/// `justify-content`).
public enum StackJustification: Hashable, Sendable {
    /// At the start.
    case start
    /// In the middle.
    case center
    /// At the end.
    case end
    /// The first at the start, the last at the end, equal space between; at the start when they
    /// overflow.
    case spaceBetween
    /// Equal space around each, half of it at the ends; centred when they overflow.
    case spaceAround
    /// Equal space between each and at the ends; centred when they overflow.
    case spaceEvenly
}

/// Where a stack puts a child across its axis (CSS `align-items` and `align-self`).
public enum StackAlignment: Hashable, Sendable {
    /// At the start of its line.
    case start
    /// In the middle of its line.
    case center
    /// At the end of its line.
    case end
    /// As long as its line, within its limits, unless it has its own size on that axis.
    case stretch
}

/// Where a wrapping stack puts its lines across its axis when they leave space free (CSS
/// `align-content`).
public enum StackLineAlignment: Hashable, Sendable {
    /// At the start.
    case start
    /// In the middle.
    case center
    /// At the end.
    case end
    /// The first at the start, the last at the end, equal space between.
    case spaceBetween
    /// Equal space around each line, half of it at the ends.
    case spaceAround
    /// Equal space between each line and at the ends.
    case spaceEvenly
    /// The free space shared among the lines, which grow by as much each.
    case stretch
}

/// The axes on which `LayoutSpec.center` centres.
public struct Centering: OptionSet, Hashable, Sendable {
    /// The set's bits.
    public let rawValue: Int
    /// Makes a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Centred left to right.
    public static let horizontal = Centering(rawValue: 1)
    /// Centred top to bottom.
    public static let vertical = Centering(rawValue: 2)
    /// Centred on both axes.
    public static let both: Centering = [.horizontal, .vertical]
}

/// Where `LayoutSpec.relative` puts its child on one axis.
public enum RelativePosition: Hashable, Sendable {
    /// At the start.
    case start
    /// In the middle.
    case center
    /// At the end.
    case end
}

/// How large a relative, centring or absolute spec makes itself.
public enum RelativeSizing: Hashable, Sendable {
    /// As large as the range allows wherever that is finite, and as its content elsewhere.
    case fill
    /// As small as its content allows within the range.
    case fit
}

/// Why a layout could not be made.
public enum LayoutError: Error, Hashable, Sendable {
    /// The tree nests deeper than `LayoutSpec.maximumDepth`.
    case tooDeep(limit: Int)
    /// Two items of the tree have the same key, so their frames could not be told apart.
    case duplicateKey(LayoutKey)
}

/// A laid-out tree: its size and where each item goes.
public struct LayoutResult: Sendable, Hashable {
    /// One item's place.
    public struct Placement: Sendable, Hashable {
        /// The item's key.
        public let key: LayoutKey
        /// Its frame in the coordinate space of the tree's top-left corner.
        public let frame: Rect
    }

    /// The size the tree takes.
    public let size: Size
    /// Every item's frame, in the order the tree lists them.
    public let placements: [Placement]

    /// The frame of the item under `key`, if the tree has one.
    public func frame(of key: LayoutKey) -> Rect? { placements.first { $0.key == key }?.frame }
}

/// How a spec sizes itself and behaves in a stack; set through `flex`, `alignSelf`, `frame` and
/// `position`.
public struct LayoutStyle: Hashable, Sendable {
    /// Its share of a stack's free space.
    public internal(set) var grow = 0.0
    /// Its share of a stack's overflow, weighted by its basis.
    public internal(set) var shrink = 1.0
    /// Its length along a stack's axis before growing or shrinking.
    public internal(set) var basis = LayoutLength.auto
    /// Its alignment across a stack's axis, or nil for the stack's.
    public internal(set) var alignSelf: StackAlignment?
    /// Its own width.
    public internal(set) var width = LayoutLength.auto
    /// Its own height.
    public internal(set) var height = LayoutLength.auto
    /// The least width it takes.
    public internal(set) var minWidth = LayoutLength.auto
    /// The largest width it takes.
    public internal(set) var maxWidth = LayoutLength.auto
    /// The least height it takes.
    public internal(set) var minHeight = LayoutLength.auto
    /// The largest height it takes.
    public internal(set) var maxHeight = LayoutLength.auto
    /// Its top-left corner inside an absolute spec.
    public internal(set) var position = Point.zero

    static func factor(_ value: Double) -> Double { value.isFinite && value > 0 ? min(value, LayoutSpec.maximumLength) : 0 }
    static func length(_ value: Double) -> Double { value.isFinite && value > 0 ? min(value, LayoutSpec.maximumLength) : 0 }
    static func coordinate(_ value: Double) -> Double {
        value.isFinite ? min(max(value, -LayoutSpec.maximumLength), LayoutSpec.maximumLength) : 0
    }
}

struct StackOptions: Sendable {
    let axis: LayoutAxis
    let spacing: Double
    let justify: StackJustification
    let alignItems: StackAlignment
    let wrap: Bool
    let lineSpacing: Double
    let alignContent: StackLineAlignment
}

struct RelativeOptions: Sendable {
    let horizontal: RelativePosition
    let vertical: RelativePosition
    let sizing: RelativeSizing
}

struct AbsoluteSizing: Sendable {
    let sizing: RelativeSizing
}
