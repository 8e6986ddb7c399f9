import StrataCore

/// Frames per second and the main thread's time per tick, after YYFPSLabel: a label that counts
/// the frames its host's `DisplayLink` delivers and shows them at most twice a second, coloured
/// by health (green at the display's rate, through yellow, to red). It renders on a render queue
/// like any label.
///
/// While it is in a tree, its display-link subscription keeps frames coming, as YYFPSLabel's
/// CADisplayLink does: it measures the rate frames can be made, so it asks for them. The link
/// holds it weakly; removing the label from its tree ends the subscription. Main actor only.
@MainActor
public final class FPSLabel: Label {
    /// How often the text changes at most; a negative interval counts as zero (every frame).
    public var updateInterval: Duration = .milliseconds(500)
    /// The rate shown as fully healthy (green); a value that is not finite or below 1 counts as 60.
    public var targetFramesPerSecond = 60.0

    /// The last rate shown.
    public private(set) var framesPerSecond = 0.0
    /// The last main-thread time per tick shown (the host's median of recent ticks).
    public private(set) var mainThreadTime: Duration = .zero

    private weak var subscribedHost: LayerHost?
    private var subscription: DisplayLink.Subscription?
    private var frames = 0
    private var windowStart: UInt64?

    /// A label showing "– fps" until frames have been counted.
    public init(font: Font = Font(size: 12, weight: .semibold)) {
        super.init(text: "– fps", font: font, color: .white)
        backgroundColor = Color(red: 0, green: 0, blue: 0, alpha: 0.7)
        cornerRadius = 6
        insets = 4
        alignment = .center
    }

    public override func didJoin(_ host: LayerHost) {
        super.didJoin(host)
        guard host !== subscribedHost else { return }
        if let subscription, let subscribedHost { subscribedHost.displayLink.remove(subscription) }
        subscribedHost = host
        frames = 0
        windowStart = nil
        subscription = host.displayLink.add(self) { label, _ in label.frameArrived() }
    }

    /// Shows the given values now; the display link calls it with what it measured. A rate that
    /// is not finite or negative shows as 0, one above a million as a million; a negative time
    /// as 0, and a time above a million seconds as a million seconds.
    public func show(framesPerSecond: Double, mainThreadTime: Duration) {
        let fps = framesPerSecond.isFinite ? min(max(framesPerSecond, 0), 1e6) : 0
        self.framesPerSecond = fps
        self.mainThreadTime = mainThreadTime
        let milliseconds = min(Double(Monotonic.nanoseconds(mainThreadTime)) / 1e6, 1e9)
        text = "\(Int(fps.rounded())) fps · main \(Self.format(milliseconds)) ms"
        // YYFPSLabel's scale: red below a fifth of the target, green at it. A target that is not
        // a finite rate of at least 1 counts as 60.
        let target = targetFramesPerSecond.isFinite && targetFramesPerSecond >= 1 ? targetFramesPerSecond : 60
        let health = min(max(fps / target, 0), 1)
        textColor = Color(hue: 0.27 * max(health - 0.2, 0) / 0.8, saturation: 0.9, lightness: 0.6)
    }

    private func frameArrived() {
        guard let host, host === subscribedHost else {
            // Left its tree (or moved to another): stop following the old host.
            if let subscription, let subscribedHost { subscribedHost.displayLink.remove(subscription) }
            subscription = nil
            subscribedHost = nil
            return
        }
        let now = Monotonic.now
        guard let start = windowStart else {
            windowStart = now
            return
        }
        frames += 1
        let elapsed = now - start
        guard elapsed >= Monotonic.nanoseconds(updateInterval) else { return }
        show(framesPerSecond: Double(frames) * 1e9 / Double(elapsed),
             mainThreadTime: host.statistics.mainThreadTimePerTick.percentile(0.5))
        frames = 0
        windowStart = now
    }

    private static func format(_ milliseconds: Double) -> String {
        let hundredths = Int((milliseconds * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100)." + (fraction.count < 2 ? "0" + fraction : fraction)
    }
}
