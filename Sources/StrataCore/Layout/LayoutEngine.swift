import StrataRender

/// Solves a `LayoutSpec`: the tree is first flattened into numbered nodes, so every layout of a
/// node within a range is made once and remembered. A stack measures each child more than once
/// (its basis, then its cross size, then stretched); remembering keeps a nested tree from paying
/// that at every level.
struct LayoutEngine: Sendable {
    enum Kind: Sendable {
        case item(LayoutKey?, @Sendable (SizeRange) -> Size)
        case stack(StackOptions)
        case inset(EdgeInsets)
        case overlay
        case background
        case ratio(Double)
        case relative(RelativeOptions)
        case absolute(AbsoluteSizing)
    }

    struct Node: Sendable {
        let kind: Kind
        let style: LayoutStyle
        var children: [Int] = []
    }

    /// A node laid out: its size, and its children's layouts at their origins in its space.
    struct Laid: Sendable {
        let node: Int
        let size: Size
        var children: [Placed] = []
    }

    struct Placed: Sendable {
        let origin: Point
        let laid: Laid
    }

    /// One layout asked of a node: the range, the parent's size its fractions are of, and the
    /// axes whose size the parent has decided (a stack's flexed length, or a stretch), where the
    /// node's own `width` or `height` no longer applies.
    struct Request: Hashable, Sendable {
        let node: Int
        let range: SizeRange
        let parent: Size
        let decidedWidth: Bool
        let decidedHeight: Bool
    }

    private(set) var nodes: [Node] = []
    private var memo: [Request: Laid] = [:]

    init(root: LayoutSpec) throws(LayoutError) {
        var keys = Set<LayoutKey>()
        // Depth first with an explicit stack, so no tree is too deep to be refused cleanly.
        var pending: [(spec: LayoutSpec, parent: Int?, depth: Int)] = [(root, nil, 1)]
        while let (spec, parent, depth) = pending.popLast() {
            guard depth <= LayoutSpec.maximumDepth else { throw .tooDeep(limit: LayoutSpec.maximumDepth) }
            let index = nodes.count
            let children: [LayoutSpec]
            switch spec.kind {
            case .item(let key, let measure):
                if let key, !keys.insert(key).inserted { throw .duplicateKey(key) }
                nodes.append(Node(kind: .item(key, measure), style: spec.style))
                children = []
            case .stack(let options, let list):
                nodes.append(Node(kind: .stack(options), style: spec.style))
                children = list
            case .inset(let insets, let child):
                nodes.append(Node(kind: .inset(insets), style: spec.style))
                children = [child]
            case .overlay(let child, let overlay):
                nodes.append(Node(kind: .overlay, style: spec.style))
                children = [child, overlay]
            case .background(let child, let background):
                nodes.append(Node(kind: .background, style: spec.style))
                children = [background, child]
            case .ratio(let ratio, let child):
                nodes.append(Node(kind: .ratio(ratio), style: spec.style))
                children = [child]
            case .relative(let options, let child):
                nodes.append(Node(kind: .relative(options), style: spec.style))
                children = [child]
            case .absolute(let sizing, let list):
                nodes.append(Node(kind: .absolute(sizing), style: spec.style))
                children = list
            }
            if let parent { nodes[parent].children.append(index) }
            // Reversed, so they pop, and so are numbered and listed, in order.
            for child in children.reversed() { pending.append((child, index, depth + 1)) }
        }
    }

    mutating func solve(in range: SizeRange) -> LayoutResult {
        LayoutSpec.solveCount.increment()
        let root = layout(Request(node: 0, range: range, parent: range.max, decidedWidth: false, decidedHeight: false))
        var placements: [LayoutResult.Placement] = []
        var pending: [(laid: Laid, origin: Point)] = [(root, .zero)]
        while let (laid, origin) = pending.popLast() {
            if case .item(let key?, _) = nodes[laid.node].kind {
                placements.append(.init(key: key, frame: Rect(origin: origin, size: laid.size)))
            }
            for child in laid.children.reversed() {
                pending.append((child.laid, Point(x: origin.x + child.origin.x, y: origin.y + child.origin.y)))
            }
        }
        return LayoutResult(size: root.size, placements: placements)
    }

    // MARK: Each kind

    mutating func layout(_ request: Request) -> Laid {
        if let known = memo[request] { return known }
        let node = nodes[request.node]
        let range = constrained(request)
        let laid: Laid
        switch node.kind {
        case .item(_, let measure):
            // An app's measurement is bounded like any other length, then brought into the range.
            let measured = measure(range)
            let bounded = Size(width: Swift.min(measured.width, LayoutSpec.maximumLength),
                               height: Swift.min(measured.height, LayoutSpec.maximumLength))
            laid = Laid(node: request.node, size: range.clamp(bounded))
        case .stack(let options):
            var stack = StackLayout(options: options, range: range, node: request.node, children: node.children)
            laid = stack.layout(with: &self)
        case .inset(let insets):
            laid = layoutInset(request.node, insets, in: range)
        case .overlay, .background:
            laid = layoutLayered(request.node, under: node.kind.isBackground, in: range)
        case .ratio(let ratio):
            laid = layoutRatio(request.node, ratio, in: range)
        case .relative(let options):
            laid = layoutRelative(request.node, options, in: range)
        case .absolute(let sizing):
            laid = layoutAbsolute(request.node, sizing.sizing, in: range)
        }
        memo[request] = laid
        return laid
    }

    /// Lays out child `index` within `range`, its fractions of `range`'s largest size.
    mutating func child(_ index: Int, in range: SizeRange, decidedWidth: Bool = false, decidedHeight: Bool = false) -> Laid {
        layout(Request(node: index, range: range, parent: range.max, decidedWidth: decidedWidth, decidedHeight: decidedHeight))
    }

    /// The request's range narrowed by the node's own size and limits. Where the two do not
    /// overlap the node's own wins: a child keeps its size and overflows, as in CSS.
    func constrained(_ request: Request) -> SizeRange {
        let style = nodes[request.node].style
        func axis(own: LayoutLength, low: LayoutLength, high: LayoutLength, parent: Double, decided: Bool) -> (Double, Double) {
            let least = low.resolved(against: parent) ?? 0
            let most = Swift.max(high.resolved(against: parent) ?? .infinity, least)
            if !decided, let own = own.resolved(against: parent) {
                let size = Swift.min(Swift.max(own, least), most)
                return (size, size)
            }
            return (least, most)
        }
        let (minWidth, maxWidth) = axis(own: style.width, low: style.minWidth, high: style.maxWidth,
                                        parent: request.parent.width, decided: request.decidedWidth)
        let (minHeight, maxHeight) = axis(own: style.height, low: style.minHeight, high: style.maxHeight,
                                          parent: request.parent.height, decided: request.decidedHeight)
        let own = SizeRange(min: Size(width: minWidth, height: minHeight), max: Size(width: maxWidth, height: maxHeight))
        return request.range.intersected(with: own)
    }

    private mutating func layoutInset(_ index: Int, _ insets: EdgeInsets, in range: SizeRange) -> Laid {
        let across = insets.left + insets.right, down = insets.top + insets.bottom
        let inner = SizeRange(min: Size(width: range.min.width - across, height: range.min.height - down),
                              max: Size(width: range.max.width - across, height: range.max.height - down))
        let content = child(nodes[index].children[0], in: inner)
        let size = range.clamp(Size(width: content.size.width + across, height: content.size.height + down))
        return Laid(node: index, size: size, children: [Placed(origin: Point(x: insets.left, y: insets.top), laid: content)])
    }

    /// An overlay or a background: the main child sizes the spec, and the other is laid out at
    /// exactly that size. The children are listed background first.
    private mutating func layoutLayered(_ index: Int, under background: Bool, in range: SizeRange) -> Laid {
        let (first, second) = (nodes[index].children[0], nodes[index].children[1])
        let main = child(background ? second : first, in: range)
        let other = child(background ? first : second, in: .exactly(main.size), decidedWidth: true, decidedHeight: true)
        let layers = background ? [other, main] : [main, other]
        return Laid(node: index, size: main.size, children: layers.map { Placed(origin: .zero, laid: $0) })
    }

    /// The largest size at the ratio that the range allows; without a finite maximum, the
    /// child's own width sets it.
    private mutating func layoutRatio(_ index: Int, _ ratio: Double, in range: SizeRange) -> Laid {
        let child = nodes[index].children[0]
        var size: Size
        switch (range.max.width.isFinite, range.max.height.isFinite) {
        case (true, true):
            size = range.max.width * ratio <= range.max.height
                ? Size(width: range.max.width, height: range.max.width * ratio)
                : Size(width: range.max.height / ratio, height: range.max.height)
        case (true, false):
            size = Size(width: range.max.width, height: range.max.width * ratio)
        case (false, true):
            size = Size(width: range.max.height / ratio, height: range.max.height)
        case (false, false):
            let natural = self.child(child, in: SizeRange(min: .zero, max: range.max))
            size = Size(width: natural.size.width, height: natural.size.width * ratio)
        }
        size = range.clamp(size)
        let content = self.child(child, in: .exactly(size), decidedWidth: true, decidedHeight: true)
        return Laid(node: index, size: size, children: [Placed(origin: .zero, laid: content)])
    }

    private mutating func layoutRelative(_ index: Int, _ options: RelativeOptions, in range: SizeRange) -> Laid {
        let content = child(nodes[index].children[0], in: SizeRange(min: .zero, max: range.max))
        let size = range.clamp(Self.size(options.sizing, range: range, content: content.size))
        func offset(_ position: RelativePosition, _ space: Double, _ length: Double) -> Double {
            switch position {
            case .start: return 0
            case .center: return (space - length) / 2
            case .end: return space - length
            }
        }
        let origin = Point(x: offset(options.horizontal, size.width, content.size.width),
                           y: offset(options.vertical, size.height, content.size.height))
        return Laid(node: index, size: size, children: [Placed(origin: origin, laid: content)])
    }

    private mutating func layoutAbsolute(_ index: Int, _ sizing: RelativeSizing, in range: SizeRange) -> Laid {
        var placed: [Placed] = [], extent = Size.zero
        for childIndex in nodes[index].children {
            let position = nodes[childIndex].style.position
            let room = SizeRange(max: Size(width: range.max.width - position.x, height: range.max.height - position.y))
            let laid = child(childIndex, in: room)
            placed.append(Placed(origin: position, laid: laid))
            extent = Size(width: Swift.max(extent.width, position.x + laid.size.width),
                          height: Swift.max(extent.height, position.y + laid.size.height))
        }
        return Laid(node: index, size: range.clamp(Self.size(sizing, range: range, content: extent)), children: placed)
    }

    private static func size(_ sizing: RelativeSizing, range: SizeRange, content: Size) -> Size {
        switch sizing {
        case .fit: return content
        case .fill:
            return Size(width: range.max.width.isFinite ? range.max.width : content.width,
                        height: range.max.height.isFinite ? range.max.height : content.height)
        }
    }
}

extension LayoutEngine.Kind {
    var isBackground: Bool {
        if case .background = self { return true }
        return false
    }
}
