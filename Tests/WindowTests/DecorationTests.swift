import Testing
@testable import StrataWayland
import Strata

/// Where a press on Strata's own title bar goes. Headless weston has no seat, so the pointer
/// path itself is exercised only by hand; the decision it makes is checked here.
@MainActor
struct DecorationTests {
    private let size = Size(width: 400, height: 300)

    @Test func pressesMoveCloseOrResize() {
        #expect(ClientDecorations.region(at: Point(x: 100, y: 15), size: size, resizable: true) == .titleBar)
        #expect(ClientDecorations.region(at: Point(x: 383, y: 16), size: size, resizable: true) == .closeButton)
        #expect(ClientDecorations.region(at: Point(x: 100, y: 150), size: size, resizable: true) == .content)
        #expect(ClientDecorations.region(at: Point(x: 2, y: 2), size: size, resizable: true) == .edge(.topLeft))
        #expect(ClientDecorations.region(at: Point(x: 399, y: 299), size: size, resizable: true) == .edge(.bottomRight))
        #expect(ClientDecorations.region(at: Point(x: 200, y: 298), size: size, resizable: true) == .edge(.bottom))
        #expect(ClientDecorations.region(at: Point(x: 1, y: 150), size: size, resizable: true) == .edge(.left))
    }

    @Test func aMaximizedWindowDoesNotResizeFromItsEdges() {
        #expect(ClientDecorations.region(at: Point(x: 2, y: 2), size: size, resizable: false) == .titleBar)
        #expect(ClientDecorations.region(at: Point(x: 1, y: 150), size: size, resizable: false) == .content)
    }
}

extension DecorationTests {
    @Test func theCloseButtonHasSomeSlopButNotMore() {
        // The button is 14 points at x 376...390, y 9...23, with 4 points of slop around it.
        #expect(ClientDecorations.region(at: Point(x: 373, y: 6), size: size, resizable: true) == .closeButton)
        #expect(ClientDecorations.region(at: Point(x: 370, y: 16), size: size, resizable: true) == .titleBar)
    }
}
