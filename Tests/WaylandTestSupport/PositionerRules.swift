/// A rectangle in whole surface-local units, as xdg-shell carries them.
public struct ShellRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int32, y: Int32, width: Int32, height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    var maxX: Int32 { x + width }
    var maxY: Int32 { y + height }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// One request to a scripted `xdg_positioner`, as it arrived.
public enum PositionerRequest: Sendable, Equatable {
    case setSize(width: Int32, height: Int32)
    case setAnchorRect(ShellRect)
    case setAnchor(UInt32)
    case setGravity(UInt32)
    case setConstraintAdjustment(UInt32)
    case setOffset(x: Int32, y: Int32)
    case setReactive
    case setParentSize(width: Int32, height: Int32)
    case setParentConfigure(UInt32)
}

/// The rules a client set on one `xdg_positioner`, copied when a popup is made or repositioned
/// with it, and the placement the xdg-shell text derives from them. Raw protocol values
/// throughout: `anchor` and `gravity` are `xdg_positioner.anchor`/`gravity`, and
/// `constraintAdjustment` is the `constraint_adjustment` bitfield.
public struct PositionerRules: Sendable, Equatable {
    public var width: Int32 = 0, height: Int32 = 0
    public var anchorRect = ShellRect(x: 0, y: 0, width: 0, height: 0)
    public var anchor: UInt32 = 0
    public var gravity: UInt32 = 0
    public var constraintAdjustment: UInt32 = 0
    public var offsetX: Int32 = 0, offsetY: Int32 = 0
    public var isReactive = false
    public var parentSize: (width: Int32, height: Int32)? {
        get { parentWidth.map { ($0, parentHeight ?? 0) } }
        set { parentWidth = newValue?.width; parentHeight = newValue?.height }
    }
    private var parentWidth: Int32?, parentHeight: Int32?
    public var parentConfigure: UInt32?

    public init() {}

    mutating func apply(_ request: PositionerRequest) {
        switch request {
        case let .setSize(width, height): (self.width, self.height) = (width, height)
        case let .setAnchorRect(rect): anchorRect = rect
        case let .setAnchor(value): anchor = value
        case let .setGravity(value): gravity = value
        case let .setConstraintAdjustment(value): constraintAdjustment = value
        case let .setOffset(x, y): (offsetX, offsetY) = (x, y)
        case .setReactive: isReactive = true
        case let .setParentSize(width, height): parentSize = (width, height)
        case let .setParentConfigure(serial): parentConfigure = serial
        }
    }

    // MARK: Placement

    /// Where the popup goes, relative to its parent's window geometry, when the parent's window
    /// geometry sits at `parentOrigin` and the popup must stay inside `bounds` (an output's
    /// area, in the same coordinates as `parentOrigin`). As the protocol text says: the anchor
    /// point on the anchor rectangle, the popup grown from it in the gravity's direction, the
    /// offset added; then, where the popup leaves `bounds` on an axis, flip, slide and resize
    /// on that axis, in that order, as far as `constraintAdjustment` allows.
    public func placement(parentOrigin: (x: Int32, y: Int32), bounds: ShellRect) -> ShellRect {
        // Work in the bounds' coordinates, and report relative to the parent.
        var x = Axis(anchorStart: anchorRect.x + parentOrigin.x, anchorLength: anchorRect.width,
                     anchor: Self.horizontal(anchor), gravity: Self.horizontal(gravity), offset: offsetX, length: width,
                     boundsStart: bounds.x, boundsLength: bounds.width)
        var y = Axis(anchorStart: anchorRect.y + parentOrigin.y, anchorLength: anchorRect.height,
                     anchor: Self.vertical(anchor), gravity: Self.vertical(gravity), offset: offsetY, length: height,
                     boundsStart: bounds.y, boundsLength: bounds.height)
        x.unconstrain(flip: constraintAdjustment & 4 != 0, slide: constraintAdjustment & 1 != 0, resize: constraintAdjustment & 16 != 0)
        y.unconstrain(flip: constraintAdjustment & 8 != 0, slide: constraintAdjustment & 2 != 0, resize: constraintAdjustment & 32 != 0)
        return ShellRect(x: x.start - parentOrigin.x, y: y.start - parentOrigin.y, width: x.length, height: y.length)
    }

    /// -1 for an anchor or gravity with a left part, 1 with a right part, 0 for neither.
    static func horizontal(_ value: UInt32) -> Int32 {
        switch value {
        case 3, 5, 6: -1
        case 4, 7, 8: 1
        default: 0
        }
    }

    /// -1 for an anchor or gravity with a top part, 1 with a bottom part, 0 for neither.
    static func vertical(_ value: UInt32) -> Int32 {
        switch value {
        case 1, 5, 7: -1
        case 2, 6, 8: 1
        default: 0
        }
    }

    /// One axis of a placement: the protocol treats x and y alike and apart.
    private struct Axis {
        let anchorStart: Int32, anchorLength: Int32
        var anchor: Int32, gravity: Int32
        let offset: Int32
        var length: Int32
        let boundsStart: Int32, boundsLength: Int32
        var start: Int32 = 0

        init(anchorStart: Int32, anchorLength: Int32, anchor: Int32, gravity: Int32, offset: Int32, length: Int32,
             boundsStart: Int32, boundsLength: Int32) {
            self.anchorStart = anchorStart
            self.anchorLength = anchorLength
            self.anchor = anchor
            self.gravity = gravity
            self.offset = offset
            self.length = length
            self.boundsStart = boundsStart
            self.boundsLength = boundsLength
            start = position(anchor: anchor, gravity: gravity)
        }

        var boundsEnd: Int32 { boundsStart + boundsLength }
        var end: Int32 { start + length }
        var isConstrained: Bool { start < boundsStart || end > boundsEnd }

        /// The popup's start for an anchor and gravity: the anchor point on the rectangle (an
        /// edge, or its middle), minus the popup's length as the gravity says, plus the offset.
        func position(anchor: Int32, gravity: Int32) -> Int32 {
            let point = anchorStart + (anchor < 0 ? 0 : anchor > 0 ? anchorLength : anchorLength / 2)
            return point - (gravity < 0 ? length : gravity > 0 ? 0 : length / 2) + offset
        }

        mutating func unconstrain(flip: Bool, slide: Bool, resize: Bool) {
            // Flip: the other side of the anchor, kept only when that side is not constrained.
            if isConstrained, flip, anchor != 0 || gravity != 0 {
                let flipped = position(anchor: -anchor, gravity: -gravity)
                if flipped >= boundsStart, flipped + length <= boundsEnd {
                    start = flipped
                    anchor = -anchor
                    gravity = -gravity
                }
            }
            // Slide: first towards the gravity until the opposite edge is free or the gravity's
            // edge would leave the bounds, then back the other way likewise. A centred popup
            // slides as one growing towards the end.
            if isConstrained, slide {
                if gravity < 0 {
                    if end > boundsEnd { start -= max(min(end - boundsEnd, start - boundsStart), 0) }
                    if start < boundsStart { start += max(min(boundsStart - start, boundsEnd - end), 0) }
                } else {
                    if start < boundsStart { start += max(min(boundsStart - start, boundsEnd - end), 0) }
                    if end > boundsEnd { start -= max(min(end - boundsEnd, start - boundsStart), 0) }
                }
            }
            // Resize: cut to the bounds, unless nothing would be left.
            if isConstrained, resize {
                let newStart = max(start, boundsStart), newEnd = min(end, boundsEnd)
                if newEnd > newStart {
                    start = newStart
                    length = newEnd - newStart
                }
            }
        }
    }
}
