import ArgumentParser
import Foundation
import Glibc
import Strata

/// M13's Strata subject: a `TextView` holding the document, in a 1280×800 window, with the caret
/// at the end of its first line, timed per typed key as `gtk-typing-peer` times a `GtkTextView`
/// (`TypingLatency` defines the figures). It prints `ready` a second after the window has the
/// keyboard and nothing is left to lay out, then, once every key's frame has been presented, one
/// `event=` line per key (`PresentationProbe`), `first_line=` and `end`. Errors are printed as `error=`.
struct TypingSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "typing-subject", abstract: "M13's Strata subject.",
                                                    shouldDisplay: false)
    @Option(help: "The document to open (UTF-8).") var document: String
    @Option(help: "How many keys will be typed.") var keys: Int
    @Option(help: "Seconds before giving up.") var timeout = 120.0

    func run() throws {
        guard (1...10_000).contains(keys), timeout.isFinite, (1...3600).contains(timeout) else {
            throw ValidationError("typing-subject --keys 1...10000 --timeout 1...3600")
        }
        // A stuck main loop cannot notice its deadline; the alarm's default action ends the process.
        alarm(UInt32(timeout.rounded(.up)) + 10)
        MainActor.assumeIsolated {
            do {
                let text = try String(readingFile: document)
                let run = try TypingRun(document: text, keys: keys)
                try run.run(timeout: timeout)
            } catch {
                emit("error=\(error)")
            }
            emit("end")
        }
    }
}

/// The window, the text view and the measuring. Main thread.
@MainActor
final class TypingRun {
    let session: WaylandSession
    let window: Window
    let textView: TextView
    private let expected: Int
    private let probe: PresentationProbe
    /// The caret's rectangle before each key, in surface points: the glyph goes to its right.
    private var caretsBefore: [Rect] = []
    /// The text colour: a glyph's pixels are the dark ones, apart from the red caret.
    static let textColor = Color(rgb: 0x111827)

    init(document: String, keys: Int) throws {
        expected = keys
        session = try WaylandSession.connect(loop: MainLoop())
        window = try Window(session: session, title: "Strata · M13 typing", appID: "org.strata.typing-subject",
                            size: Size(width: 1280, height: 800))
        probe = PresentationProbe(window: window)
        window.host.backgroundColor = .white
        textView = TextView(text: document)
        textView.font = Font(family: "DejaVu Sans", size: 14)
        textView.textColor = Self.textColor
        textView.caretColor = Color(rgb: 0xFF0000)
        window.contentLayer.addSublayer(textView)
        window.contentLayer.layoutHandler = { [textView] content in textView.frame = content.bounds }
        let firstLine = document.prefix { $0 != "\n" }.utf16.count
        textView.selection = TextSelection(anchor: firstLine, focus: firstLine)
        window.host.input.onEvent = { [weak self] event, _ in
            if case let .key(key) = event, key.state == .pressed { self?.delivered() }
        }
        window.host.frameInspector = { [weak self] frame in self?.inspect(frame) }
    }

    func run(timeout: Double) throws {
        let deadline = monotonicSeconds() + timeout
        _ = textView.becomeFocused()
        // Ready: the keyboard is here, the view has laid out and drawn, and a second has passed,
        // as in gtk-typing-peer, so the first key finds the caret blinking on both sides.
        while !(window.host.input.hasKeyboardFocus && textView.pendingLayouts == 0 && window.host.statistics.frameSignals > 0) {
            guard monotonicSeconds() < deadline else { throw BenchError(message: "the window never got the keyboard and settled") }
            try session.loop.runOnce(timeout: .milliseconds(20))
        }
        try session.run(for: .seconds(1))
        guard textView.pendingLayouts == 0 else { throw BenchError(message: "the text view is still laying out") }
        emit("ready")
        while !probe.allPresented(expected) {
            if let failure = probe.failure { throw BenchError(message: failure) }
            guard monotonicSeconds() < deadline else {
                throw BenchError(message: "timed out with \(probe.events.count) of \(expected) keys delivered, "
                                 + "\(probe.presentedCount) presented")
            }
            try session.loop.runOnce(timeout: .milliseconds(20))
        }
        probe.emitReports()
        let firstLine = textView.text.prefix { $0 != "\n" }
        emit("first_line=\(firstLine)")
    }

    private func delivered() {
        caretsBefore.append(textView.convert(textView.textInputCursorRect, to: nil))
        probe.delivered()
    }

    /// Called right before each frame is attached and committed: the waiting keys whose glyph
    /// its pixels show are committed with it.
    private func inspect(_ frame: FrameInspection) {
        let scale = frame.geometry.scale
        probe.committing(probe.waiting.filter { glyphShown(after: caretsBefore[$0], in: frame.bitmap, scale: scale) })
    }

    /// Whether the cell right of `caret` (surface points) holds dark glyph pixels: the typed
    /// letters are wide ones, so their middle is inked, and the caret, red, never counts.
    private func glyphShown(after caret: Rect, in bitmap: Bitmap, scale: Double) -> Bool {
        let x0 = Int(((caret.maxX + 1.5) * scale).rounded(.down)), x1 = Int(((caret.maxX + 5.5) * scale).rounded(.up))
        let y0 = Int((caret.minY * scale).rounded(.down)), y1 = Int((caret.maxY * scale).rounded(.up))
        guard x0 >= 0, y0 >= 0, x1 <= bitmap.width, y1 <= bitmap.height, x0 < x1, y0 < y1 else { return false }
        var dark = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let pixel = bitmap.pixel(x: x, y: y)
                let red = (pixel >> 16) & 0xFF, green = (pixel >> 8) & 0xFF, blue = pixel & 0xFF
                if max(red, green, blue) < 110 { dark += 1 }
            }
        }
        return dark >= 3
    }
}
