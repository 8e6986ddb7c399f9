import StrataCore
import Testing

private func key(_ number: Int) -> LayoutKey { LayoutKey(number) }
private func box(_ number: Int, _ width: Double, _ height: Double) -> LayoutSpec {
    .item(key(number), size: Size(width: width, height: height))
}
private func exactly(_ width: Double, _ height: Double) -> SizeRange { .exactly(Size(width: width, height: height)) }
private func frames(_ spec: LayoutSpec, in range: SizeRange) throws -> [Rect] {
    try spec.layout(in: range).placements.map(\.frame)
}
private func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> Rect {
    Rect(x: x, y: y, width: width, height: height)
}

/// Layout specs against frames worked out by hand from the CSS Flexible Box Layout specification
/// (§9, "Flex Layout Algorithm"), with Texture's reading of a size range: a stack grows its
/// children into the range's minimum along its axis and shrinks them to fit its maximum.
struct LayoutSpecTests {
    // MARK: Alignment across the axis

    struct AlignCase: Sendable, CustomTestStringConvertible {
        let alignment: StackAlignment
        let expected: [Rect]
        var testDescription: String { "\(alignment)" }
    }

    /// A 300×100 row of a 50×20 and a 70×30 child: stretch makes both as high as the line (their
    /// cross size is automatic); the others place them at the line's start, centre or end.
    @Test(arguments: [
        AlignCase(alignment: .stretch, expected: [rect(0, 0, 50, 100), rect(50, 0, 70, 100)]),
        AlignCase(alignment: .start, expected: [rect(0, 0, 50, 20), rect(50, 0, 70, 30)]),
        AlignCase(alignment: .center, expected: [rect(0, 40, 50, 20), rect(50, 35, 70, 30)]),
        AlignCase(alignment: .end, expected: [rect(0, 80, 50, 20), rect(50, 70, 70, 30)]),
    ])
    func alignItems(_ test: AlignCase) throws {
        let row = LayoutSpec.stack(.horizontal, alignItems: test.alignment, [box(0, 50, 20), box(1, 70, 30)])
        let result = try row.layout(in: exactly(300, 100))
        #expect(result.size == Size(width: 300, height: 100))
        #expect(result.placements.map(\.frame) == test.expected)
    }

    /// `alignSelf` overrides the stack's `alignItems` for one child, and a child with its own
    /// cross size is never stretched.
    @Test func alignSelfAndOwnCrossSize() throws {
        let row = LayoutSpec.stack(.horizontal, alignItems: .stretch, [
            box(0, 50, 20).alignSelf(.end),
            box(1, 50, 20).frame(height: .points(30)),
            box(2, 50, 20),
        ])
        #expect(try frames(row, in: exactly(300, 100)) == [
            rect(0, 80, 50, 20), rect(50, 0, 50, 30), rect(100, 0, 50, 100),
        ])
    }

    // MARK: Growing and shrinking (§9.7)

    struct FlexCase: Sendable, CustomTestStringConvertible {
        let name: String
        let children: [LayoutSpec]
        let range: SizeRange
        let widths: [Double]
        var testDescription: String { name }
    }

    @Test(arguments: [
        // Free space 300 − 120 = 180, shared 1:3.
        FlexCase(name: "grow shares free space by factor",
                 children: [box(0, 50, 10).flex(grow: 1), box(1, 70, 10).flex(grow: 3)],
                 range: exactly(300, 10), widths: [95, 205]),
        // 50 + 90 = 140 breaks the maximum of 60: frozen there; the other takes the rest, 240.
        FlexCase(name: "a maximum freezes a growing child",
                 children: [box(0, 50, 10).flex(grow: 1).frame(maxWidth: .points(60)), box(1, 70, 10).flex(grow: 1)],
                 range: exactly(300, 10), widths: [60, 240]),
        // Overflow 100 shared by shrink × basis, equal here.
        FlexCase(name: "shrink shares overflow equally for equal bases",
                 children: [box(0, 150, 10), box(1, 150, 10)],
                 range: SizeRange(max: Size(width: 200, height: 10)), widths: [100, 100]),
        // Overflow 150, scaled shrink factors 100 and 200: 50 and 100 taken.
        FlexCase(name: "shrink is weighted by basis",
                 children: [box(0, 100, 10), box(1, 200, 10)],
                 range: SizeRange(max: Size(width: 150, height: 10)), widths: [50, 100]),
        // The first would shrink to 50, under its minimum of 90: frozen at 90; the other absorbs
        // the rest of the overflow, 150 − 90 = 60.
        FlexCase(name: "a minimum freezes a shrinking child",
                 children: [box(0, 100, 10).frame(minWidth: .points(90)), box(1, 200, 10)],
                 range: SizeRange(max: Size(width: 150, height: 10)), widths: [90, 60]),
        FlexCase(name: "shrink 0 keeps the basis",
                 children: [box(0, 150, 10).flex(shrink: 0), box(1, 150, 10)],
                 range: SizeRange(max: Size(width: 200, height: 10)), widths: [150, 50]),
        // Factors summing under 1 take only that fraction of the free space: 0.25 × 180 = 45.
        FlexCase(name: "factors under one take part of the free space",
                 children: [box(0, 50, 10).flex(grow: 0.25), box(1, 70, 10)],
                 range: exactly(300, 10), widths: [95, 70]),
        // An explicit basis replaces the content's size; a fraction is of the stack's length.
        FlexCase(name: "basis in points and as a fraction",
                 children: [box(0, 50, 10).flex(basis: .points(80)), box(1, 50, 10).flex(basis: .fraction(0.5))],
                 range: exactly(300, 10), widths: [80, 150]),
        // Without a minimum to grow into, a stack is as long as its children: nothing grows.
        FlexCase(name: "nothing grows beyond the content when the range allows any length",
                 children: [box(0, 50, 10).flex(grow: 1), box(1, 70, 10)],
                 range: SizeRange(max: Size(width: 300, height: 10)), widths: [50, 70]),
        FlexCase(name: "a spacer takes the free space",
                 children: [box(0, 50, 10), .spacer(), box(1, 50, 10)],
                 range: exactly(300, 10), widths: [50, 50]),
    ])
    func flexibleLengths(_ test: FlexCase) throws {
        let result = try LayoutSpec.stack(.horizontal, alignItems: .start, test.children).layout(in: test.range)
        #expect(result.placements.map(\.frame.width) == test.widths)
    }

    /// A spacer between two children pushes the second to the end.
    @Test func spacerPushesToTheEnd() throws {
        let row = LayoutSpec.stack(.horizontal, alignItems: .start, [box(0, 50, 10), .spacer(), box(1, 50, 10)])
        #expect(try frames(row, in: exactly(300, 10)) == [rect(0, 0, 50, 10), rect(250, 0, 50, 10)])
    }

    // MARK: Along the axis (justify-content)

    struct JustifyCase: Sendable, CustomTestStringConvertible {
        let justify: StackJustification
        let xs: [Double]
        var testDescription: String { "\(justify)" }
    }

    /// Three 50-point children 10 apart in 300 points: 170 used, 130 free.
    @Test(arguments: [
        JustifyCase(justify: .start, xs: [0, 60, 120]),
        JustifyCase(justify: .end, xs: [130, 190, 250]),
        JustifyCase(justify: .center, xs: [65, 125, 185]),
        JustifyCase(justify: .spaceBetween, xs: [0, 125, 250]),
        // 130 / 3 around each: 21.667 before the first, 43.333 between.
        JustifyCase(justify: .spaceAround, xs: [130.0 / 6, 130.0 / 6 + 60 + 130.0 / 3, 130.0 / 6 + 120 + 260.0 / 3]),
        // 130 / 4 = 32.5 at each of the four places.
        JustifyCase(justify: .spaceEvenly, xs: [32.5, 125, 217.5]),
    ])
    func justifyContent(_ test: JustifyCase) throws {
        let row = LayoutSpec.stack(.horizontal, spacing: 10, justify: test.justify, alignItems: .start,
                                   [box(0, 50, 10), box(1, 50, 10), box(2, 50, 10)])
        let xs = try frames(row, in: exactly(300, 10)).map(\.minX)
        #expect(zip(xs, test.xs).allSatisfy { abs($0 - $1) < 1e-9 }, "\(xs)")
    }

    /// Overflowing children: space-between falls back to start, space-around and space-evenly
    /// to centre (CSS Box Alignment's fallbacks).
    @Test func overflowFallsBack() throws {
        func xs(_ justify: StackJustification) throws -> [Double] {
            let row = LayoutSpec.stack(.horizontal, justify: justify, alignItems: .start,
                                       [box(0, 100, 10).flex(shrink: 0), box(1, 100, 10).flex(shrink: 0)])
            return try frames(row, in: exactly(150, 10)).map(\.minX)
        }
        #expect(try xs(.spaceBetween) == [0, 100])
        #expect(try xs(.spaceAround) == [-25, 75])
        #expect(try xs(.spaceEvenly) == [-25, 75])
    }

    // MARK: Wrapping (§9.3) and lines (align-content)

    /// 40-point children 10 apart wrap at 100 points: two fit on the first line (90), the third
    /// starts the second. Lines are as high as their highest child, 5 apart.
    @Test func wrapsIntoLines() throws {
        let children = [box(0, 40, 10), box(1, 40, 20), box(2, 40, 30)]
        let range = SizeRange(min: Size(width: 100, height: 0), max: Size(width: 100, height: .infinity))
        let start = try LayoutSpec.stack(.horizontal, spacing: 10, alignItems: .start, wrap: true, lineSpacing: 5, children)
            .layout(in: range)
        #expect(start.size == Size(width: 100, height: 55))
        #expect(start.placements.map(\.frame) == [rect(0, 0, 40, 10), rect(50, 0, 40, 20), rect(0, 25, 40, 30)])
        // Stretched, each child is as high as its own line.
        let stretched = try frames(.stack(.horizontal, spacing: 10, wrap: true, lineSpacing: 5, children), in: range)
        #expect(stretched == [rect(0, 0, 40, 20), rect(50, 0, 40, 20), rect(0, 25, 40, 30)])
    }

    struct LinesCase: Sendable, CustomTestStringConvertible {
        let alignment: StackLineAlignment
        let ys: [Double]
        let heights: [Double]
        var testDescription: String { "\(alignment)" }
    }

    /// The same lines in a 100×100 stack: 20 + 5 + 30 = 55 used, 45 free.
    @Test(arguments: [
        LinesCase(alignment: .start, ys: [0, 0, 25], heights: [20, 20, 30]),
        LinesCase(alignment: .end, ys: [45, 45, 70], heights: [20, 20, 30]),
        LinesCase(alignment: .center, ys: [22.5, 22.5, 47.5], heights: [20, 20, 30]),
        LinesCase(alignment: .spaceBetween, ys: [0, 0, 70], heights: [20, 20, 30]),
        // Each line grows by 22.5: 42.5 and 52.5, the second at 42.5 + 5.
        LinesCase(alignment: .stretch, ys: [0, 0, 47.5], heights: [42.5, 42.5, 52.5]),
    ])
    func alignContent(_ test: LinesCase) throws {
        let stack = LayoutSpec.stack(.horizontal, spacing: 10, wrap: true, lineSpacing: 5, alignContent: test.alignment,
                                     [box(0, 40, 10), box(1, 40, 20), box(2, 40, 30)])
        let placed = try frames(stack, in: exactly(100, 100))
        #expect(placed.map(\.minY) == test.ys)
        #expect(placed.map(\.height) == test.heights)
    }

    // MARK: Measuring

    /// A column 200 wide of a paragraph whose height depends on its width (300 points of text,
    /// 10 points a line): its basis is measured across the whole width, two lines.
    @Test func columnMeasuresTextAcrossItsWidth() throws {
        let paragraph = LayoutSpec.item(key(0)) { range in
            let width = min(range.max.width, 300)
            return Size(width: width, height: (300 / width).rounded(.up) * 10)
        }
        let column = LayoutSpec.stack(.vertical, [paragraph, box(1, 20, 15)])
        let range = SizeRange(min: Size(width: 200, height: 0), max: Size(width: 200, height: .infinity))
        let result = try column.layout(in: range)
        #expect(result.size == Size(width: 200, height: 35))
        #expect(result.placements.map(\.frame) == [rect(0, 0, 200, 20), rect(0, 20, 200, 15)])
    }

    /// A row holding a fixed child and a growing column: the column takes the rest of the width,
    /// is stretched to the row's height, and stretches its own children to its width.
    @Test func nestedStacks() throws {
        let column = LayoutSpec.stack(.vertical, [box(1, 10, 10), box(2, 10, 10)]).flex(grow: 1)
        let row = LayoutSpec.stack(.horizontal, [box(0, 50, 50), column])
        #expect(try frames(row, in: exactly(300, 50)) == [
            rect(0, 0, 50, 50), rect(50, 0, 250, 10), rect(50, 10, 250, 10),
        ])
    }

    /// A post's shape: a column 200 wide holding a row of a 40-point avatar and a paragraph that
    /// grows from nothing (basis 0) into the rest, 10 points a line for 300 points of text. The
    /// row is stretched across a column of definite width, so it is measured at that width
    /// (§9.8), and the paragraph at the 160 points it grows to: two lines, not one character a
    /// line at its basis.
    @Test func aRowInAColumnOfDefiniteWidthIsMeasuredAtThatWidth() throws {
        let paragraph = LayoutSpec.item(key(1)) { range in
            let width = max(min(range.max.width, 300), 1)
            return Size(width: width, height: (300 / width).rounded(.up) * 10)
        }
        let row = LayoutSpec.stack(.horizontal, alignItems: .start, [box(0, 40, 40), paragraph.flex(grow: 1, shrink: 1, basis: .points(0))])
        let column = LayoutSpec.stack(.vertical, alignItems: .stretch, [row, box(2, 200, 1)])
        let range = SizeRange(min: Size(width: 200, height: 0), max: Size(width: 200, height: .infinity))
        let result = try column.layout(in: range)
        #expect(result.size == Size(width: 200, height: 41))
        #expect(result.placements.map(\.frame) == [rect(0, 0, 40, 40), rect(40, 0, 160, 20), rect(0, 40, 200, 1)])
    }

    /// A width given as a fraction is of the parent's width; limits bound it.
    @Test func ownSizesAndLimits() throws {
        let row = LayoutSpec.stack(.horizontal, alignItems: .start, [
            box(0, 10, 10).frame(width: .fraction(0.5)),
            box(1, 10, 10).frame(width: .points(500), maxWidth: .points(40)),
            box(2, 10, 10).frame(minHeight: .points(25)),
        ])
        #expect(try frames(row, in: SizeRange(max: Size(width: 300, height: 100)))
            == [rect(0, 0, 150, 10), rect(150, 0, 40, 10), rect(190, 0, 10, 25)])
    }

    // MARK: The other specs

    @Test func insetAddsSpaceAround() throws {
        let result = try LayoutSpec.inset(EdgeInsets(top: 1, left: 2, bottom: 3, right: 4), box(0, 50, 20))
            .layout(in: .unconstrained)
        #expect(result.size == Size(width: 56, height: 24))
        #expect(result.placements.map(\.frame) == [rect(2, 1, 50, 20)])
    }

    /// An overlay and a background take their child's size; a background is listed first.
    @Test func overlayAndBackground() throws {
        let overlay = try LayoutSpec.overlay(box(0, 50, 20), box(1, 5, 5)).layout(in: .unconstrained)
        #expect(overlay.placements.map(\.key) == [key(0), key(1)])
        #expect(overlay.placements.map(\.frame) == [rect(0, 0, 50, 20), rect(0, 0, 50, 20)])
        let background = try LayoutSpec.background(box(0, 50, 20), box(1, 5, 5)).layout(in: .unconstrained)
        #expect(background.placements.map(\.key) == [key(1), key(0)])
        #expect(background.size == Size(width: 50, height: 20))
    }

    @Test func ratioTakesTheLargestSizeThatFits() throws {
        #expect(try LayoutSpec.ratio(0.5, box(0, 1, 1)).layout(in: SizeRange(max: Size(width: 200, height: .infinity))).size
            == Size(width: 200, height: 100))
        #expect(try LayoutSpec.ratio(2, box(0, 1, 1)).layout(in: SizeRange(max: Size(width: 200, height: 100))).size
            == Size(width: 50, height: 100))
        // With no finite bound, the child's own width sets it.
        #expect(try LayoutSpec.ratio(1.5, box(0, 40, 1)).layout(in: .unconstrained).size == Size(width: 40, height: 60))
    }

    @Test func centerAndRelative() throws {
        let range = SizeRange(max: Size(width: 100, height: 100))
        let filled = try LayoutSpec.center(box(0, 20, 10)).layout(in: range)
        #expect(filled.size == Size(width: 100, height: 100))
        #expect(filled.placements.map(\.frame) == [rect(40, 45, 20, 10)])
        #expect(try LayoutSpec.center(sizing: .fit, box(0, 20, 10)).layout(in: range).size == Size(width: 20, height: 10))
        #expect(try frames(.center(on: .horizontal, box(0, 20, 10)), in: range) == [rect(40, 0, 20, 10)])
        #expect(try frames(.relative(horizontal: .end, vertical: .end, box(0, 20, 10)), in: range)
            == [rect(80, 90, 20, 10)])
    }

    @Test func absolutePlacesAtPositions() throws {
        let spec = LayoutSpec.absolute(sizing: .fit, [
            box(0, 10, 10).position(Point(x: 5, y: 7)),
            box(1, 20, 5).position(Point(x: 30, y: 0)),
        ])
        let result = try spec.layout(in: .unconstrained)
        #expect(result.size == Size(width: 50, height: 17))
        #expect(result.placements.map(\.frame) == [rect(5, 7, 10, 10), rect(30, 0, 20, 5)])
    }

    // MARK: Bad input

    /// NaN, negative and infinite sizes, lengths, factors and spacing become harmless values:
    /// every frame is finite and nothing traps.
    @Test func hostileNumbersGiveFiniteFrames() throws {
        let bad: [Double] = [.nan, -.infinity, -5, .infinity, .greatestFiniteMagnitude]
        for value in bad {
            let row = LayoutSpec.stack(.horizontal, spacing: value, justify: .spaceAround, wrap: true, lineSpacing: value, [
                .item(key(0)) { _ in Size(width: value, height: value) },
                box(1, 10, 10).flex(grow: value, shrink: value, basis: .points(value)),
                box(2, 10, 10).flex(basis: .fraction(value)).frame(width: .points(value), minWidth: .fraction(value),
                                                                      maxWidth: .points(value), minHeight: .points(value)),
                .ratio(value, box(3, 10, 10)),
                .inset(EdgeInsets(all: value), box(4, 10, 10)).position(Point(x: value, y: value)),
            ])
            for range in [SizeRange(min: Size(width: value, height: value), max: Size(width: value, height: value)), .unconstrained,
                          SizeRange(max: Size(width: 300, height: value))] {
                let result = try row.layout(in: range)
                #expect(result.size.width.isFinite && result.size.height.isFinite, "\(value) \(range)")
                for placement in result.placements {
                    #expect(placement.frame.minX.isFinite && placement.frame.minY.isFinite, "\(value) \(range): \(placement)")
                    #expect(!placement.frame.width.isNaN && !placement.frame.height.isNaN, "\(value) \(range): \(placement)")
                    #expect(placement.frame.width >= 0 && placement.frame.height >= 0, "\(value) \(range): \(placement)")
                }
            }
        }
    }

    @Test func aTreeTooDeepIsRefused() {
        var spec = box(0, 1, 1)
        for _ in 0..<LayoutSpec.maximumDepth { spec = .inset(.zero, spec) }
        #expect(throws: LayoutError.tooDeep(limit: LayoutSpec.maximumDepth)) { try spec.layout(in: .unconstrained) }
    }

    @Test func aKeyUsedTwiceIsRefused() {
        let spec = LayoutSpec.stack(.horizontal, [box(7, 1, 1), box(7, 2, 2)])
        #expect(throws: LayoutError.duplicateKey(key(7))) { try spec.layout(in: .unconstrained) }
    }

    /// A spec is a value: one that includes an earlier copy of itself holds that copy, not
    /// itself, so the tree stays finite.
    @Test func aSpecCannotContainItself() throws {
        var spec = LayoutSpec.stack(.vertical, [box(0, 10, 10)])
        spec = .stack(.vertical, [spec, .inset(.zero, .spacer())])
        #expect(try spec.layout(in: .unconstrained).placements.count == 1)
    }

    /// Ten thousand children in one wrapping stack: every one placed, in rows of ten.
    @Test func tenThousandChildren() throws {
        let children = (0..<10_000).map { box($0, 10, 10) }
        let result = try LayoutSpec.stack(.horizontal, alignItems: .start, wrap: true, children)
            .layout(in: SizeRange(max: Size(width: 100, height: .infinity)))
        #expect(result.placements.count == 10_000)
        #expect(result.size == Size(width: 100, height: 10_000))
        #expect(result.frame(of: key(9_999)) == rect(90, 9_990, 10, 10))
    }
}
