import Strata
import Testing
import WaylandTestSupport

/// A floating window that draws its own decorations casts the theme's window shadow: its surface
/// is the frame plus the shadow's margins, its window geometry and input region leave the shadow
/// out (but for a band that resizes), and it loses the margins when maximized or tiled. On the
/// scripted compositor, which records what the window says of itself.
@Suite(.serialized)
@MainActor
struct WindowShadowTests {
    private static let left = PointerButton.left.rawValue

    /// The theme's margins, as the window rounds them.
    private var margins: EdgeInsets {
        let reach = Theme.light.metrics.windowShadow?.reach ?? .zero
        return EdgeInsets(top: reach.top.rounded(.up), left: reach.left.rounded(.up), bottom: reach.bottom.rounded(.up),
                          right: reach.right.rounded(.up))
    }

    @Test func theGeometryIsTheFrameAndTheShadowSurroundsIt() throws {
        var rig = try SeatTests.Rig(windowShadows: true)
        rig.server.captureFrames()
        let window = rig.window
        let m = margins
        #expect(m.top > 10 && m.bottom > m.top, "the shadow falls below: \(m)")
        // 200 × 100 content under a 32-point bar, inside the margins.
        let frame = Rect(x: m.left, y: m.top, width: 200, height: 132)
        #expect(window.host.size == Size(width: 200 + m.left + m.right, height: 132 + m.top + m.bottom))
        #expect(window.contentSize == Size(width: 200, height: 100))
        let id = window.surface.id
        try rig.session.run(until: {
            rig.server.observed.windowGeometries[id] == ShellRect(x: Int32(m.left), y: Int32(m.top), width: 200, height: 132)
        })

        // What reached the compositor: the frame, transparent corners, a shadow below.
        try rig.session.run(until: { rig.server.observed.lastFrame?.width == Int(window.host.size.width) })
        let pixels = try #require(rig.server.observed.lastFrame)
        #expect(pixels[0, 0] == 0, "the surface's corner is clear")
        #expect(pixels[Int(frame.midX), Int(frame.maxY) + 4] >> 24 > 0, "the shadow shows below the frame")
        #expect(pixels[Int(frame.midX), Int(frame.maxY) + 4] >> 24 < 255)
        #expect(pixels[Int(frame.midX), Int(frame.minY) + 2] >> 24 == 255, "the title bar is opaque")

        // A press on the content, in surface points, reaches the content at its own point.
        try rig.enter(at: Point(x: m.left + 40, y: m.top + 32 + 10))
        try rig.pointer([.button(serial: 60, time: 1, button: Self.left, state: 1), .button(serial: 61, time: 2, button: Self.left, state: 0), .frame])
        #expect(rig.target.presses.first?.location == Point(x: 40, y: 10))

        // Just outside the frame's corner, in the shadow, a press resizes from that corner.
        try rig.pointer([.motion(time: 3, x: frame.maxX + 4, y: frame.maxY + 4), .frame])
        #expect(window.host.input.cursor == .resizeBottomRight)
        try rig.pointer([.button(serial: 70, time: 4, button: Self.left, state: 1), .frame])
        try rig.session.run(until: { rig.server.observed.resizes.count == 1 })
        #expect(rig.server.observed.resizes.first?.serial == 70)
    }

    @Test func aMaximizedWindowHasNoShadowAndAFloatingOneGetsItBack() throws {
        let rig = try SeatTests.Rig(windowShadows: true)
        let window = rig.window
        let id = window.surface.id
        let maximized = XdgToplevel.State.maximized.rawValue, activated = XdgToplevel.State.activated.rawValue
        rig.server.configureToplevels(width: 640, height: 480, states: [maximized, activated])
        try rig.session.run(until: { window.states.contains(.maximized) })
        // The compositor's size is the whole surface now, and the geometry all of it.
        #expect(window.host.size == Size(width: 640, height: 480))
        #expect(window.contentSize == Size(width: 640, height: 448))
        try rig.session.run(until: { rig.server.observed.windowGeometries[id] == ShellRect(x: 0, y: 0, width: 640, height: 480) })

        rig.server.configureToplevels(width: 300, height: 200, states: [activated])
        try rig.session.run(until: { !window.states.contains(.maximized) })
        let m = margins
        #expect(window.host.size == Size(width: 300 + m.left + m.right, height: 200 + m.top + m.bottom))
        #expect(window.contentSize == Size(width: 300, height: 168))
        try rig.session.run(until: {
            rig.server.observed.windowGeometries[id] == ShellRect(x: Int32(m.left), y: Int32(m.top), width: 300, height: 200)
        })
    }

    @Test func absurdSizesKeepTheSurfaceWithinItsLimitAndTheGeometryValid() throws {
        let rig = try SeatTests.Rig(windowShadows: true)
        let window = rig.window
        let id = window.surface.id
        window.resize(to: Size(width: 1e300, height: .nan))
        #expect(window.host.size.width <= 16384)
        window.resize(to: Size(width: -4, height: 0))
        try rig.session.run(until: {
            guard let geometry = rig.server.observed.windowGeometries[id] else { return false }
            return geometry.width == 1 && geometry.height >= 33
        })
        #expect(rig.server.observed.protocolErrors.isEmpty)
        #expect(rig.session.error == nil)
    }
}
