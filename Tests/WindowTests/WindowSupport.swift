import Glibc
import RenderTestSupport
import Strata
import StrataPlatform
import Testing
import WaylandTestSupport


extension WaylandSession {
    /// Runs the loop until `condition` holds; fails the test after `timeout`.
    func run(until condition: () -> Bool, timeout: Duration = .seconds(10),
             sourceLocation: SourceLocation = #_sourceLocation) throws {
        try poll(until: condition, timeout: timeout, sourceLocation: sourceLocation) { () throws in
            try loop.runOnce(timeout: .milliseconds(20))
        }
    }

    /// Runs the loop for `duration`, whatever happens.
    func run(for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline { try loop.runOnce(timeout: .milliseconds(20)) }
    }
}

/// A scripted server and a session on it with `count` windows, configured and answered frames.
@MainActor
func openConfiguredWindows(_ count: Int) throws -> (TestCompositor, WaylandSession, [Window]) {
    let server = try TestCompositor()
    server.installShell()
    server.answerFramesAutomatically(true)
    let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
    let windows = try (0..<count).map { _ in try Window(session: session, title: "run", size: Size(width: 40, height: 30)) }
    try session.run(until: { server.observed.toplevels == count })
    server.configureToplevels()
    try session.run(until: { windows.allSatisfy(\.isConfigured) })
    return (server, session, windows)
}

extension Window {
    /// Waits until the compositor has shown everything the window has to show: configured,
    /// nothing pending, and the last frame's callback received.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let backend = host.backend as? WaylandSurfaceBackend
        try session.run(until: {
            isConfigured && host.isIdle && host.statistics.framesCommitted > 0
                && backend?.isAwaitingPresentationFeedback != true
        }, sourceLocation: sourceLocation)
    }
}

/// What reached the screen, through weston-screenshooter (weston runs with --debug).
enum Screenshot {
    static func capture(sourceLocation: SourceLocation = #_sourceLocation) throws -> Bitmap {
        let directory = try PrivateDirectory.make(prefix: "strata-shot")
        defer { _ = try? Subprocess.run("rm -rf '\(directory)'") }
        let (status, output) = try Subprocess.run("cd '\(directory)' && weston-screenshooter && ls")
        let file = output.split(separator: "\n").first { $0.hasSuffix(".png") }
        guard status == 0, let file else {
            throw Subprocess.Failure(description: "weston-screenshooter failed (\(status)): \(output)")
        }
        return try PNG.read(from: directory + "/" + file)
    }
}

/// A window whose content is two exact colours side by side, easy to find in a screenshot.
@MainActor
func twoColourWindow(_ session: WaylandSession, left: Color, right: Color, size: Size) throws(WaylandError) -> Window {
    let window = try Window(session: session, title: "test", size: size)
    let leftLayer = Layer(), rightLayer = Layer()
    leftLayer.backgroundColor = left
    rightLayer.backgroundColor = right
    window.contentLayer.addSublayer(leftLayer)
    window.contentLayer.addSublayer(rightLayer)
    window.contentLayer.layoutHandler = { content in
        let half = (content.bounds.width / 2).rounded()
        leftLayer.frame = Rect(x: 0, y: 0, width: half, height: content.bounds.height)
        rightLayer.frame = Rect(x: half, y: 0, width: content.bounds.width - half, height: content.bounds.height)
    }
    return window
}

/// Paints a flat colour that tests change; each change is a new async render.
@MainActor
final class FlatColour: AsyncLayerDelegate {
    var colour: Color
    init(_ colour: Color) { self.colour = colour }
    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        let colour = colour
        return DisplayTask(display: { canvas, size, _ in canvas.fill(Rect(origin: .zero, size: size), color: colour) })
    }
}

extension WaylandSession {
    /// Pins a theme whose windows cast no shadow, so a window's surface is its frame: for tests
    /// that read the surface's pixels or send input at surface coordinates. Windows' shadows
    /// have tests of their own (`WindowShadowTests`).
    func castNoWindowShadows() {
        var theme = Theme.light
        theme.metrics.windowShadow = nil
        self.theme = theme
    }
}
