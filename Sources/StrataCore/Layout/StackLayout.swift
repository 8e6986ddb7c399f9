import StrataRender

/// One stack laid out by CSS flexbox's algorithm (CSS Flexible Box Layout Module Level 1, §9),
/// with Texture's reading of a size range: children grow into the range's minimum along the axis
/// and shrink to fit its maximum.
///
/// What differs from CSS, on purpose: a child's automatic minimum size is 0 (CSS uses its
/// min-content size; Texture and `min-width: 0` do this), there are no auto margins, no baseline
/// alignment and no reversed directions.
struct StackLayout {
    let options: StackOptions
    let range: SizeRange
    let node: Int
    let children: [Int]

    /// One child through the algorithm.
    private struct Item {
        let index: Int
        let style: LayoutStyle
        /// The flex base size and the hypothetical main size (§9.2, steps 3 and 4).
        var base = 0.0, hypothetical = 0.0
        var minMain = 0.0, maxMain = Double.infinity
        var minCross = 0.0, maxCross = Double.infinity
        /// The child's own cross size, if it has one; it is then never stretched.
        var ownCross: Double?
        var main = 0.0, cross = 0.0
        var laid: LayoutEngine.Laid?
        var alignment: StackAlignment = .start
    }

    private var isHorizontal: Bool { options.axis == .horizontal }
    private func main(_ size: Size) -> Double { isHorizontal ? size.width : size.height }
    private func cross(_ size: Size) -> Double { isHorizontal ? size.height : size.width }
    private func size(main: Double, cross: Double) -> Size {
        isHorizontal ? Size(width: main, height: cross) : Size(width: cross, height: main)
    }
    private func point(main: Double, cross: Double) -> Point {
        isHorizontal ? Point(x: main, y: cross) : Point(x: cross, y: main)
    }

    mutating func layout(with engine: inout LayoutEngine) -> LayoutEngine.Laid {
        let parent = range.max
        let parentMain = main(parent), parentCross = cross(parent)
        let minMain = main(range.min), maxMain = main(range.max)
        let minCross = cross(range.min), maxCross = cross(range.max)

        // §9.2: each child's flex base size and hypothetical main size.
        var items: [Item] = children.map { index in
            let style = engine.nodes[index].style
            var item = Item(index: index, style: style)
            let (ownMain, lowMain, highMain) = isHorizontal
                ? (style.width, style.minWidth, style.maxWidth) : (style.height, style.minHeight, style.maxHeight)
            let (ownCross, lowCross, highCross) = isHorizontal
                ? (style.height, style.minHeight, style.maxHeight) : (style.width, style.minWidth, style.maxWidth)
            item.minMain = lowMain.resolved(against: parentMain) ?? 0
            item.maxMain = Swift.max(highMain.resolved(against: parentMain) ?? .infinity, item.minMain)
            item.minCross = lowCross.resolved(against: parentCross) ?? 0
            item.maxCross = Swift.max(highCross.resolved(against: parentCross) ?? .infinity, item.minCross)
            item.ownCross = ownCross.resolved(against: parentCross)
            item.alignment = style.alignSelf ?? options.alignItems
            if let basis = style.basis.resolved(against: parentMain) ?? ownMain.resolved(against: parentMain) {
                item.base = basis
            } else if !options.wrap, minCross == maxCross, maxCross.isFinite, item.alignment == .stretch, item.ownCross == nil {
                // Content-sized, and stretched across a single line of definite cross size: that
                // cross size is the child's, and definite (§9.8), so a row that grows to the
                // width of a column is measured at that width, not at its narrowest.
                let across = SizeRange.clamp(maxCross, item.minCross, item.maxCross)
                let natural = engine.child(index, in: SizeRange(min: size(main: 0, cross: across), max: size(main: .infinity, cross: across)),
                                           decidedWidth: !isHorizontal, decidedHeight: isHorizontal)
                item.base = main(natural.size)
            } else {
                // Content-sized: as long as it wants with the whole cross space (max-content).
                let natural = engine.child(index, in: SizeRange(max: size(main: .infinity, cross: maxCross)))
                item.base = main(natural.size)
            }
            item.hypothetical = Swift.min(Swift.max(item.base, item.minMain), item.maxMain)
            return item
        }

        // §9.3: lines. Without wrapping, or without a finite length to wrap at, one line.
        var lines: [Range<Int>] = []
        if options.wrap, maxMain.isFinite, !items.isEmpty {
            var start = 0, length = 0.0
            for position in items.indices {
                let next = (position == start ? 0 : length + options.spacing) + items[position].hypothetical
                if position > start, next > maxMain {
                    lines.append(start..<position)
                    start = position
                    length = items[position].hypothetical
                } else {
                    length = next
                }
            }
            lines.append(start..<items.count)
        } else {
            lines = [0..<items.count]
        }

        // §9.7: resolve the flexible lengths of each line.
        for line in lines { resolveFlexibleLengths(&items[line], minMain: minMain, maxMain: maxMain) }
        let lineLengths = lines.map { line in
            items[line].reduce(0) { $0 + $1.main } + options.spacing * Double(Swift.max(line.count - 1, 0))
        }
        let containerMain = SizeRange.clamp(lineLengths.max() ?? 0, minMain, maxMain)

        // §9.4: each child's hypothetical cross size, laid out at its main size.
        for position in items.indices {
            let item = items[position]
            let laid = engine.child(item.index,
                                    in: SizeRange(min: size(main: item.main, cross: 0), max: size(main: item.main, cross: maxCross)),
                                    decidedWidth: isHorizontal, decidedHeight: !isHorizontal)
            items[position].laid = laid
            items[position].cross = cross(laid.size)
        }
        // The cross size of each line: a single line takes the container's, within its limits.
        var lineCrosses = lines.map { line in items[line].reduce(0) { Swift.max($0, $1.cross) } }
        if !options.wrap {
            let definite = minCross == maxCross
            lineCrosses[0] = definite ? maxCross : SizeRange.clamp(lineCrosses[0], minCross, maxCross)
        }
        let linesTotal = lineCrosses.reduce(0, +) + options.lineSpacing * Double(lines.count - 1)
        let containerCross = SizeRange.clamp(linesTotal, minCross, maxCross)

        // §9.4 step 15 and §9.6 (align-content): lines stretched or placed in the free space.
        var lineOffsets: [Double] = []
        let lineFree = containerCross - linesTotal
        if options.wrap, lineFree > 0, options.alignContent == .stretch {
            for index in lineCrosses.indices { lineCrosses[index] += lineFree / Double(lines.count) }
        }
        let (lineLead, lineGap) = options.wrap
            ? Self.distribute(Self.lineDistribution(options.alignContent), free: lineFree, count: lines.count)
            : (0, 0)
        var crossCursor = lineLead
        for index in lines.indices {
            lineOffsets.append(crossCursor)
            crossCursor += lineCrosses[index] + options.lineSpacing + lineGap
        }

        // §9.4 step 11: stretched children take their line's cross size; §9.5 and §9.6: place.
        var placed: [LayoutEngine.Placed] = []
        placed.reserveCapacity(items.count)
        for (lineIndex, line) in lines.enumerated() {
            let (lead, gap) = Self.distribute(Self.distribution(options.justify), free: containerMain - lineLengths[lineIndex],
                                              count: line.count)
            var mainCursor = lead
            for position in line {
                var item = items[position]
                if item.alignment == .stretch, item.ownCross == nil {
                    let stretched = Swift.min(Swift.max(lineCrosses[lineIndex], item.minCross), item.maxCross)
                    if stretched != item.cross {
                        item.laid = engine.child(item.index, in: .exactly(size(main: item.main, cross: stretched)),
                                                 decidedWidth: true, decidedHeight: true)
                        item.cross = stretched
                    }
                }
                let crossOffset: Double
                switch item.alignment {
                case .start, .stretch: crossOffset = 0
                case .center: crossOffset = (lineCrosses[lineIndex] - item.cross) / 2
                case .end: crossOffset = lineCrosses[lineIndex] - item.cross
                }
                if let laid = item.laid {
                    placed.append(LayoutEngine.Placed(origin: point(main: mainCursor, cross: lineOffsets[lineIndex] + crossOffset), laid: laid))
                }
                mainCursor += item.main + options.spacing + gap
            }
        }
        return LayoutEngine.Laid(node: node, size: size(main: containerMain, cross: containerCross), children: placed)
    }

    /// §9.7 for one line: grow into `minMain` when the line is shorter, shrink to `maxMain` when
    /// it is longer, freezing the children whose limits stop them, until none is left to move.
    private func resolveFlexibleLengths(_ line: inout ArraySlice<Item>, minMain: Double, maxMain: Double) {
        let gaps = options.spacing * Double(Swift.max(line.count - 1, 0))
        let used = line.reduce(0) { $0 + $1.hypothetical } + gaps
        let growing = used < minMain
        guard growing || used > maxMain else {
            for position in line.indices { line[position].main = line[position].hypothetical }
            return
        }
        let available = growing ? minMain : maxMain
        var frozen: [Bool] = []
        for position in line.indices {
            let item = line[position]
            let factor = growing ? item.style.grow : item.style.shrink
            // Step 2: children that cannot flex, or whose limits already moved them the way the
            // line wants to go, keep their hypothetical size.
            frozen.append(factor == 0 || (growing && item.base > item.hypothetical) || (!growing && item.base < item.hypothetical))
            line[position].main = item.hypothetical
        }
        func remainingFree(_ line: ArraySlice<Item>, _ frozen: [Bool]) -> Double {
            var taken = gaps
            for (offset, item) in line.enumerated() { taken += frozen[offset] ? item.main : item.base }
            return available - taken
        }
        let initialFree = remainingFree(line, frozen)
        // Each round freezes at least one child, so a line of n children takes at most n rounds.
        for _ in 0...line.count {
            guard frozen.contains(false) else { break }
            var free = remainingFree(line, frozen)
            var factors = 0.0, scaledShrink = 0.0
            for (offset, item) in line.enumerated() where !frozen[offset] {
                factors += growing ? item.style.grow : item.style.shrink
                scaledShrink += item.style.shrink * item.base
            }
            if factors < 1, abs(initialFree * factors) < abs(free) { free = initialFree * factors }
            var violations: [Double] = Array(repeating: 0, count: line.count), total = 0.0
            for (offset, position) in line.indices.enumerated() where !frozen[offset] {
                let item = line[position]
                var target = item.base
                if growing, factors > 0 {
                    target = item.base + free * item.style.grow / factors
                } else if !growing, scaledShrink > 0 {
                    target = item.base - abs(free) * item.style.shrink * item.base / scaledShrink
                }
                let clamped = Swift.max(Swift.min(Swift.max(target, item.minMain), item.maxMain), 0)
                violations[offset] = clamped - target
                total += violations[offset]
                line[position].main = clamped
            }
            // Step 5: freeze everything, the minimum violators, or the maximum violators.
            for offset in frozen.indices where !frozen[offset] {
                if abs(total) < 1e-9 || (total > 0 && violations[offset] > 0) || (total < 0 && violations[offset] < 0) {
                    frozen[offset] = true
                }
            }
        }
    }

    private enum Distribution {
        case start, center, end, between, around, evenly
    }

    private static func distribution(_ justify: StackJustification) -> Distribution {
        switch justify {
        case .start: return .start
        case .center: return .center
        case .end: return .end
        case .spaceBetween: return .between
        case .spaceAround: return .around
        case .spaceEvenly: return .evenly
        }
    }

    private static func lineDistribution(_ alignment: StackLineAlignment) -> Distribution {
        switch alignment {
        case .start, .stretch: return .start
        case .center: return .center
        case .end: return .end
        case .spaceBetween: return .between
        case .spaceAround: return .around
        case .spaceEvenly: return .evenly
        }
    }

    /// The space before the first of `count` things and the extra space between each, for `free`
    /// points of free space. With none free (overflow), the spacing modes fall back as CSS says:
    /// between to start, around and evenly to centre.
    private static func distribute(_ distribution: Distribution, free: Double, count: Int) -> (lead: Double, gap: Double) {
        let things = Double(Swift.max(count, 1))
        switch distribution {
        case .start: return (0, 0)
        case .center: return (free / 2, 0)
        case .end: return (free, 0)
        case .between:
            return free > 0 && count > 1 ? (0, free / Double(count - 1)) : (0, 0)
        case .around:
            return free > 0 ? (free / things / 2, free / things) : (free / 2, 0)
        case .evenly:
            return free > 0 ? (free / (things + 1), free / (things + 1)) : (free / 2, 0)
        }
    }
}
