import Testing
@testable import StrataWayland
import Strata

/// Strata's own title bar, close button and resize edges, which are layers: where a press lands
/// in the tree, and what the layers do with input posted to a headless host. `SeatWindowTests`
/// drives them through a real window and seat.
@MainActor
struct DecorationTests {
    private let size = Size(width: 400, height: 300)

    /// Decorations over a headless host of `size`, with what they asked the window to do.
    @MainActor
    final class Rig {
        let host: LayerHost
        let decorations = ClientDecorations()
        var moves: [PointerEvent] = []
        var menus: [PointerEvent] = []
        var resizes: [XdgToplevel.ResizeEdge] = []
        var closes = 0
        private var time: UInt32 = 1000

        init(size: Size, resizable: Bool = true) {
            host = LayerHost(size: size, backend: HeadlessBackend(), loop: MainLoop())
            decorations.isResizable = resizable
            decorations.layout(in: host.rootLayer, frame: Rect(origin: .zero, size: size), outerMargins: .zero, visible: true)
            decorations.onMove = { [unowned self] in moves.append($0) }
            decorations.onShowMenu = { [unowned self] in menus.append($0) }
            decorations.onResize = { [unowned self] edge, _ in resizes.append(edge) }
            decorations.onClose = { [unowned self] in closes += 1 }
        }

        func region(_ x: Double, _ y: Double) -> ClientDecorations.Region {
            decorations.region(at: Point(x: x, y: y), in: host.rootLayer)
        }

        /// Posts events a second apart, so presses never make double clicks.
        func post(_ events: InputEvent...) {
            for event in events {
                time += 1000
                host.input.post(event, time: time)
            }
        }

        func click(at point: Point, button: PointerButton = .left) {
            post(.pointerMoved(point), .pointerButton(button, isPressed: true), .pointerButton(button, isPressed: false))
        }
    }

    @Test func pressesMoveCloseOrResize() {
        let rig = Rig(size: size)
        #expect(rig.region(100, 15) == .titleBar)
        #expect(rig.region(383, 16) == .closeButton)
        #expect(rig.region(100, 150) == .content)
        #expect(rig.region(2, 2) == .edge(.topLeft))
        #expect(rig.region(399, 299) == .edge(.bottomRight))
        #expect(rig.region(200, 298) == .edge(.bottom))
        #expect(rig.region(1, 150) == .edge(.left))
        #expect(rig.region(398, 1) == .edge(.topRight))
        #expect(rig.region(200, 0) == .edge(.top))
    }

    @Test func aMaximizedWindowDoesNotResizeFromItsEdges() {
        let rig = Rig(size: size, resizable: false)
        #expect(rig.region(2, 2) == .titleBar)
        #expect(rig.region(1, 150) == .content)
        rig.decorations.isResizable = true
        #expect(rig.region(1, 150) == .edge(.left))
    }

    @Test func theCloseButtonHasSomeSlopButNotMore() {
        // The button is 14 points at x 376...390, y 9...23, with 4 points of slop around it.
        let rig = Rig(size: size)
        #expect(rig.region(373, 6) == .closeButton)
        #expect(rig.region(370, 16) == .titleBar)
    }

    @Test func withoutDecorationsEverythingIsContent() {
        let rig = Rig(size: size)
        rig.decorations.layout(in: rig.host.rootLayer, frame: Rect(origin: .zero, size: size), outerMargins: .zero, visible: false)
        #expect(rig.region(100, 15) == .content)
        #expect(rig.region(1, 150) == .content)
    }

    @Test func theBarMovesOnAPrimaryPressAndShowsTheMenuOnASecondary() {
        let rig = Rig(size: size)
        rig.click(at: Point(x: 100, y: 15))
        #expect(rig.moves.count == 1)
        #expect(rig.moves.first?.source == .mouse)
        rig.click(at: Point(x: 120, y: 10), button: .right)
        #expect(rig.menus.first?.hostLocation == Point(x: 120, y: 10))
        rig.click(at: Point(x: 120, y: 10), button: .middle)
        #expect(rig.moves.count == 1 && rig.menus.count == 1)
        rig.post(.touchDown(id: 4, at: Point(x: 50, y: 20)))
        #expect(rig.moves.last?.source == .touch(id: 4))
        #expect(rig.resizes.isEmpty && rig.closes == 0)
    }

    @Test func theCloseButtonHighlightsAndClosesOnAReleaseOverIt() {
        let rig = Rig(size: size)
        let button = rig.decorations.closeButton
        let normal = button.backgroundColor
        rig.post(.pointerEntered(Point(x: 100, y: 15)), .pointerMoved(Point(x: 383, y: 16)))
        #expect(button.state == .hovered)
        let hovered = button.backgroundColor
        #expect(hovered != normal)
        rig.post(.pointerButton(.left, isPressed: true))
        #expect(button.state == .pressed)
        #expect(button.backgroundColor != hovered)
        // Dragged off, the highlight goes; back on, it returns; the release there closes.
        rig.post(.pointerMoved(Point(x: 300, y: 16)))
        #expect(button.state == .normal)
        rig.post(.pointerMoved(Point(x: 384, y: 17)))
        #expect(button.state == .pressed)
        #expect(rig.closes == 0)
        rig.post(.pointerButton(.left, isPressed: false))
        #expect(rig.closes == 1)
        #expect(button.state == .hovered)
        rig.post(.pointerExited)
        #expect(button.backgroundColor == normal)
    }

    @Test func aPressDraggedOffTheCloseButtonCancels() {
        let rig = Rig(size: size)
        rig.post(.pointerMoved(Point(x: 383, y: 16)), .pointerButton(.left, isPressed: true), .pointerMoved(Point(x: 200, y: 100)),
                 .pointerButton(.left, isPressed: false))
        #expect(rig.closes == 0)
        #expect(rig.moves.isEmpty, "the bar never saw the press")
        // A touch is a press too; a cancelled one does nothing.
        rig.post(.touchDown(id: 1, at: Point(x: 383, y: 16)), .touchCancelled)
        #expect(rig.closes == 0)
        #expect(rig.decorations.closeButton.state == .normal)
        rig.post(.touchDown(id: 2, at: Point(x: 383, y: 16)), .touchUp(id: 2))
        #expect(rig.closes == 1)
    }

    @Test func edgesShowResizeCursorsAndResize() {
        let rig = Rig(size: size)
        let cases: [(Point, Cursor, XdgToplevel.ResizeEdge)] = [
            (Point(x: 200, y: 1), .resizeTop, .top), (Point(x: 200, y: 299), .resizeBottom, .bottom),
            (Point(x: 0, y: 150), .resizeLeft, .left), (Point(x: 399, y: 150), .resizeRight, .right),
            (Point(x: 1, y: 1), .resizeTopLeft, .topLeft), (Point(x: 398, y: 2), .resizeTopRight, .topRight),
            (Point(x: 3, y: 297), .resizeBottomLeft, .bottomLeft), (Point(x: 397, y: 297), .resizeBottomRight, .bottomRight),
        ]
        var cursors: [Cursor] = []
        rig.host.input.onCursorChange = { cursors.append($0) }
        for (point, cursor, _) in cases {
            rig.post(.pointerMoved(point))
            #expect(rig.host.input.cursor == cursor, "at \(point)")
        }
        rig.post(.pointerMoved(Point(x: 200, y: 150)))
        #expect(rig.host.input.cursor == .default)
        #expect(cursors == cases.map(\.1) + [.default])
        for (point, _, _) in cases { rig.click(at: point) }
        #expect(rig.resizes == cases.map(\.2))
        #expect(rig.moves.isEmpty)
    }
}

/// Where a press lands in the decorations' layers: what the tests ask of the hit-testing.
extension ClientDecorations {
    enum Region: Equatable {
        case content, titleBar, closeButton
        case edge(XdgToplevel.ResizeEdge)
    }

    /// What the layer tree under `root` does with a press at `point` (surface points).
    func region(at point: Point, in root: Layer) -> Region {
        var node = root.hitTest(point)
        while let layer = node {
            if let handle = layer as? ResizeHandleLayer { return .edge(handle.edge) }
            if layer === closeButton { return .closeButton }
            if layer === bar { return .titleBar }
            node = layer.superlayer
        }
        return .content
    }
}
