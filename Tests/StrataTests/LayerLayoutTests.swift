import Dispatch
import Testing
@testable import Strata
import CoreTestSupport
import RenderTestSupport

/// Layers laid out by layout specs: measuring widgets on any thread, applying a spec's frames to
/// sublayers, and reporting specs that cannot be applied.
@MainActor
struct LayerLayoutTests {
    private func label(_ text: String, size: Double = 14) -> Label {
        let label = Label(text: text, font: Font(size: size))
        label.fontLibrary = pinnedFonts
        return label
    }

    /// A container's spec places its sublayers when it lays out, and again when it is resized.
    @Test func specPlacesSublayersAndFollowsResizes() throws {
        let scene = HeadlessScene(width: 300, height: 100)
        let container = Layer()
        let (a, b, c) = (Layer(), Layer(), Layer())
        for layer in [a, b, c] { container.addSublayer(layer) }
        container.layoutSpecHandler = { _ in
            .inset(EdgeInsets(all: 10), .stack(.horizontal, spacing: 5, alignItems: .stretch, [
                .layer(a).frame(width: 40),
                .layer(b).flex(grow: 1),
                .layer(c).frame(width: 20, height: 30).alignSelf(.center),
            ]))
        }
        container.frame = Rect(x: 0, y: 0, width: 200, height: 60)
        scene.root.addSublayer(container)
        try scene.settle()
        #expect(a.frame == Rect(x: 10, y: 10, width: 40, height: 40))
        #expect(b.frame == Rect(x: 55, y: 10, width: 110, height: 40))
        #expect(c.frame == Rect(x: 170, y: 15, width: 20, height: 30))

        container.frame = Rect(x: 0, y: 0, width: 300, height: 80)
        try scene.settle()
        #expect(b.frame == Rect(x: 55, y: 10, width: 210, height: 60))
        #expect(c.frame == Rect(x: 270, y: 25, width: 20, height: 30))
    }

    /// Frames land on the pixel grid, and neighbours that touched still touch.
    @Test(arguments: [1.0, 2.0])
    func framesSnapToPixels(scale: Double) throws {
        let scene = HeadlessScene(width: 100, height: 40, scale: scale)
        let container = Layer()
        let thirds = [Layer(), Layer(), Layer()]
        for layer in thirds { container.addSublayer(layer) }
        container.layoutSpecHandler = { _ in .stack(.horizontal, thirds.map { .layer($0).flex(grow: 1) }) }
        container.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        scene.root.addSublayer(container)
        try scene.settle()
        for layer in thirds {
            for edge in [layer.frame.minX, layer.frame.maxX] { #expect((edge * scale).rounded() == edge * scale) }
        }
        #expect(thirds[0].frame.maxX == thirds[1].frame.minX && thirds[1].frame.maxX == thirds[2].frame.minX)
        #expect(thirds[0].frame.minX == 0 && thirds[2].frame.maxX == 100)
    }

    /// A label's measurer is a snapshot: made on the main thread, it measures the same on a
    /// worker, and later changes to the label do not reach it.
    @Test func labelMeasurerIsASnapshotThatRunsAnywhere() async throws {
        let target = label("Ågård jumps 中文 quickly over the lazy dog")
        target.numberOfLines = 0
        let range = SizeRange(max: Size(width: 120, height: .infinity))
        let measurer = target.measurer()
        let onMain = measurer(range)
        let onWorker = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: measurer(range)) }
        }
        #expect(onWorker == onMain)
        #expect(onMain.width <= 120 && onMain.height > 30, "wraps to more than one line: \(onMain)")
        target.text = "short"
        #expect(measurer(range) == onMain)
        #expect(target.measure(in: range).height < onMain.height)
        // The layout the label will draw is the one measured.
        let layout = TextLayout(target.attributedText, options: TextLayoutOptions(width: 120), library: pinnedFonts)
        #expect(target.measure(in: range).height == (layout.bounds.maxY - min(layout.bounds.minY, 0)).rounded(.up))
    }

    /// Widgets measure by their content: a longer title makes a wider button; a toggle has one
    /// size; a slider and a field take the width offered; an image its pixels, kept in the range.
    @Test func widgetsMeasureTheirContent() throws {
        let short = Button(title: "OK"), long = Button(title: "Save all the documents")
        for button in [short, long] { button.fontLibrary = pinnedFonts }
        let wide = SizeRange(max: Size(width: 1000, height: 1000))
        #expect(long.measure(in: wide).width > short.measure(in: wide).width + 50)
        #expect(short.measure(in: wide).height == long.measure(in: wide).height)
        let toggle = Toggle()
        #expect(toggle.measure(in: wide) == toggle.measure(in: SizeRange(max: Size(width: 500, height: 500))))
        #expect(Slider().measure(in: SizeRange(max: Size(width: 300, height: 100))).width == 300)
        #expect(Slider().measure(in: .unconstrained).width == 200)
        #expect(TextField().measure(in: SizeRange(max: Size(width: 250, height: 100))).width == 250)
        let image = ImageView(image: try Bitmap(width: 400, height: 200))
        #expect(image.measure(in: wide) == Size(width: 400, height: 200))
        #expect(image.measure(in: SizeRange(max: Size(width: 100, height: 1000))) == Size(width: 100, height: 50))
        #expect(ImageView().measure(in: wide) == .zero)
        #expect(Layer().measure(in: SizeRange(min: Size(width: 3, height: 4), max: Size(width: 10, height: 10))) == Size(width: 3, height: 4))
    }

    /// A layer with a spec measures as its spec, so containers nest: a card of two labels, in a
    /// column, is as tall as its labels and insets.
    @Test func containersMeasureByTheirSpecsAndNest() throws {
        let scene = HeadlessScene(width: 300, height: 300)
        let title = label("Title", size: 20), body = label("Body text")
        let card = Layer()
        card.addSublayer(title)
        card.addSublayer(body)
        card.layoutSpecHandler = { _ in .inset(EdgeInsets(all: 8), .stack(.vertical, spacing: 4, [.layer(title), .layer(body)])) }
        let footer = Layer()
        let column = Layer()
        column.addSublayer(card)
        column.addSublayer(footer)
        column.layoutSpecHandler = { _ in .stack(.vertical, alignItems: .stretch, [.layer(card), .layer(footer).flex(grow: 1)]) }
        column.frame = Rect(x: 0, y: 0, width: 300, height: 300)
        scene.root.addSublayer(column)
        try scene.settle()

        let unbounded = SizeRange(max: Size(width: 300, height: .infinity))
        let titleHeight = title.measure(in: unbounded).height, bodyHeight = body.measure(in: unbounded).height
        #expect(titleHeight > bodyHeight && bodyHeight > 10)
        #expect(card.frame == Rect(x: 0, y: 0, width: 300, height: 8 + titleHeight + 4 + bodyHeight + 8))
        #expect(card.measure(in: unbounded).height == card.frame.height)
        #expect(title.frame.origin == Point(x: 8, y: 8) && body.frame.minY == 8 + titleHeight + 4)
        #expect(footer.frame == Rect(x: 0, y: card.frame.maxY, width: 300, height: 300 - card.frame.maxY))
    }

    /// A spec that names a layer twice, or a layer that is not a sublayer, is reported; the
    /// sublayers keep their frames. Items keyed by number are the app's and are not reported.
    @Test func specsThatCannotBeAppliedAreReported() throws {
        let scene = HeadlessScene(width: 200, height: 100)
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        let container = Layer(), inside = Layer(), stranger = Layer()
        container.addSublayer(inside)
        inside.frame = Rect(x: 1, y: 2, width: 3, height: 4)
        container.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        scene.root.addSublayer(container)
        container.layoutSpecHandler = { _ in .stack(.horizontal, [.layer(inside), .layer(inside)]) }
        try scene.settle()
        #expect(problems.map(\.code) == [.layoutFailed])
        #expect(problems.first?.cause as? LayoutError == .duplicateKey(LayoutKey(inside)))
        #expect(inside.frame == Rect(x: 1, y: 2, width: 3, height: 4))
        // Measured, the same spec is reported too, and measures as the range's minimum.
        #expect(container.measure(in: SizeRange(min: Size(width: 7, height: 7), max: Size(width: 50, height: 50))) == Size(width: 7, height: 7))
        #expect(problems.count == 2)

        problems.removeAll()
        container.layoutSpecHandler = { _ in
            .stack(.horizontal, [.layer(inside).frame(width: 50), .layer(stranger).frame(width: 10), .item(LayoutKey(1), size: Size(width: 5, height: 5))])
        }
        try scene.settle()
        #expect(problems.map(\.code) == [.layoutFailed])
        #expect(inside.frame == Rect(x: 0, y: 0, width: 50, height: 100))
        #expect(stranger.frame == .zero)
    }
}

extension LayerLayoutTests {
    /// New text in a label that a spec placed lays its container out again, and the container's
    /// own container when a spec placed that too: the neighbours move to make room.
    @Test func aChangedMeasurementLaysOutTheSpecsAbove() throws {
        let scene = HeadlessScene(width: 400, height: 100)
        let name = label("Ann"), badge = Layer()
        let row = Layer()
        row.addSublayer(name)
        row.addSublayer(badge)
        row.layoutSpecHandler = { _ in .stack(.horizontal, spacing: 4, [.layer(name), .layer(badge).frame(width: 10, height: 10)]) }
        let after = Layer()
        let outer = Layer()
        outer.addSublayer(row)
        outer.addSublayer(after)
        outer.layoutSpecHandler = { _ in .stack(.horizontal, alignItems: .start, [.layer(row), .layer(after).frame(width: 5, height: 5)]) }
        outer.frame = Rect(x: 0, y: 0, width: 400, height: 100)
        scene.root.addSublayer(outer)
        try scene.settle()
        let (badgeX, afterX) = (badge.frame.minX, after.frame.minX)
        #expect(badgeX == name.frame.maxX + 4 && afterX == row.frame.maxX)

        name.text = "Annabel Lee of the kingdom by the sea"
        try scene.settle()
        #expect(badge.frame.minX == name.frame.maxX + 4 && badge.frame.minX > badgeX + 100)
        #expect(after.frame.minX == row.frame.maxX && after.frame.minX > afterX + 100)
    }
}
