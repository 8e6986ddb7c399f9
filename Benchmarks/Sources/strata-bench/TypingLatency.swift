import BenchKit
import CBenchXKB
import Foundation
import Glibc
import Strata

/// M13 `typing_latency`: sway's virtual keyboard types letters into a Strata `TextView`
/// (`strata-bench typing-subject`) and into a GTK4 `GtkTextView` (`gtk-typing-peer`) holding the
/// same document, of 1 KB and of 1 MB, each in its own process under headless sway at 60 Hz, the
/// two sides taking turns round by round.
///
/// One definition for both: from the moment this program sends the key press to the compositor
/// (`CLOCK_MONOTONIC`) to the `wl_callback.done` of a frame callback that the subject asked for
/// with the commit of the first frame showing the glyph, at the compositor's own timestamp (sway
/// stamps it from `CLOCK_MONOTONIC`, in whole milliseconds). Each side also reports its
/// main thread's CPU time from the key's delivery to that commit.
@MainActor
enum TypingLatency {
    /// The documents: their names in the figures, and their sizes in bytes.
    nonisolated static let documents = [("1kb", 1 << 10), ("1mb", 1 << 20)]
    /// Letters whose left part is inked, which the Strata subject looks for in its frames.
    static let letters = Array("mnhkbdpqoaeg")
    static let firstLine = "Type here:"

    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        guard let display = getenv("STRATA_SWAY_DISPLAY").map({ String(cString: $0) }) else {
            throw BenchError(message: "M13 types through sway's virtual keyboard: run it under Benchmarks/run, which starts a headless sway")
        }
        let compositor = try FeedScroll.Compositor.find()
        recorder.record("refresh_interval", 1000 / compositor.refreshHz, unit: "ms", note: compositor.description)
        let keyboard = try VirtualKeyboard(display: display)
        let directory = try FeedScroll.temporaryDirectory(prefix: "strata-m13")
        defer { _ = try? capture("rm -rf '\(directory)'") }
        let keys = context.count(60, smoke: 3), rounds = context.count(2, smoke: 1)
        var random = SplitMix(seed: 13)
        for (name, bytes) in documents {
            let path = "\(directory)/\(name).txt"
            try document(bytes: bytes).write(toFile: path)
            let options = "--document '\(path)' --keys \(keys)"
            let (strata, gtk) = try InputLatency.race(rounds: rounds,
                                                      strata: "'\(CommandLine.arguments[0])' typing-subject \(options)",
                                                      gtk: "'\(BenchContext.programDirectory)gtk-typing-peer' \(options)",
                                                      environment: compositor.environment) {
                try type(keys, into: &$1, command: $0, keyboard: keyboard, random: &random)
            }
            InputLatency.record(strata: strata, gtk: gtk, suffix: "_\(name)", event: "key", refreshHz: compositor.refreshHz,
                                strataGoalIntervals: 1, into: &recorder)
            if let path = context.plotPath("m13-latency-\(name).png") {
                try InputLatency.plot(strata: strata, named: "Strata TextView", gtk: gtk, named: "GTK4 GtkTextView",
                                      title: "M13: from a key sent through sway's seat to the frame showing it, \(name) note",
                                      event: "key", to: path)
            }
        }
    }

    /// Starts one side, waits until it is ready, types `count` letters at random intervals, and
    /// adds what it reports to `side`. Throws when it fails, or reports a key short.
    private static func type(_ count: Int, into side: inout InputLatency.Side, command: String, keyboard: VirtualKeyboard,
                             random: inout SplitMix) throws {
        let client = try LoggedClient(command, protocolLog: false)
        _ = try InputLatency.waitUntilReady(client, side: side.name)
        var sent: [UInt64] = [], typed = ""
        for index in 0..<count {
            // 120–170 ms apart: the keys land at every phase of the refresh, and each frame is long
            // presented before the next key.
            usleep(useconds_t(120_000 + random.next(50_000)))
            let letter = letters[index % letters.count]
            sent.append(try keyboard.tap(letter))
            typed.append(letter)
        }
        let results = try InputLatency.read(client, into: &side, sent: sent)
        // The document must have received exactly the keys: none lost, none repeated.
        guard results["first_line"].map(String.init) == Self.firstLine + typed else {
            throw BenchError(message: "\(side.name)'s first line reads \(String(describing: results["first_line"])), not \(Self.firstLine + typed)")
        }
    }

    /// A note of `bytes` bytes: the first line to type at, then paragraphs of 200 to 1 200 bytes
    /// of M12's Latin sentences, each ending in a line feed.
    static func document(bytes: Int) -> String {
        var text = firstLine + "\n"
        var random = SplitMix(seed: 1_313)
        var index = 0
        while text.utf8.count < bytes {
            let size = min(200 + random.next(1_000), max(bytes - text.utf8.count - 1, 1))
            var bytesLeft = size
            let paragraph = ParagraphCorpus.paragraph(.latin, index: index, bytes: size).prefix { character in
                bytesLeft -= character.utf8.count
                return bytesLeft >= 0
            }
            text += paragraph + "\n"
            index += 1
        }
        return text
    }
}

/// A keyboard on sway's seat (`zwp_virtual_keyboard_v1`), on a connection of its own, with the
/// US layout xkbcommon compiles: keys reach the focused client as real `wl_keyboard` events.
@MainActor
final class VirtualKeyboard {
    private let connection: Connection
    private let keyboard: ZwpVirtualKeyboardV1
    /// The evdev code of each letter the layout types without modifiers.
    private let codes: [Character: UInt32]

    init(display: String) throws {
        connection = try Connection.connect(to: display)
        let seat = try connection.registry.bind(WlSeat.self, maxVersion: 1)
        keyboard = try connection.registry.bind(ZwpVirtualKeyboardManagerV1.self, maxVersion: 1).createVirtualKeyboard(seat: seat)
        let (text, codes) = try Self.keymap()
        self.codes = codes
        // The keymap goes in a memfd, with its terminating NUL, as compositors read it.
        var bytes = Array(text.utf8)
        bytes.append(0)
        let file = try SharedMemory(size: bytes.count, name: "strata-m13-keymap")
        bytes.withUnsafeBytes { file.address.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        try keyboard.keymap(format: .xkbV1, fd: file.fileDescriptor, size: UInt32(bytes.count))
        try connection.roundtrip()
    }

    /// Presses and releases the key for `letter`; returns when the press was sent
    /// (`CLOCK_MONOTONIC`, ns).
    func tap(_ letter: Character) throws -> UInt64 {
        guard let code = codes[letter] else { throw BenchError(message: "no key types \(letter)") }
        let sent = PresentationProbe.now(CLOCK_MONOTONIC)
        let milliseconds = UInt32(truncatingIfNeeded: sent / 1_000_000)
        try keyboard.key(time: milliseconds, key: code, state: 1)
        try keyboard.key(time: milliseconds, key: code, state: 0)
        try connection.flush()
        return sent
    }

    /// The US layout's keymap text, and the key of each character on its first level.
    private static func keymap() throws -> (String, [Character: UInt32]) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw BenchError(message: "xkb_context_new failed") }
        defer { xkb_context_unref(context) }
        var names = xkb_rule_names(rules: nil, model: nil, layout: nil, variant: nil, options: nil)
        let compiled = "us".withCString { layout in
            names.layout = layout
            return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
        guard let keymap = compiled else { throw BenchError(message: "xkbcommon cannot compile the us keymap") }
        defer { xkb_keymap_unref(keymap) }
        guard let raw = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            throw BenchError(message: "xkb_keymap_get_as_string failed")
        }
        defer { free(raw) }
        var codes: [Character: UInt32] = [:]
        for code in xkb_keymap_min_keycode(keymap)...xkb_keymap_max_keycode(keymap) where code >= 8 {
            var symbols: UnsafePointer<xkb_keysym_t>?
            guard xkb_keymap_key_get_syms_by_level(keymap, code, 0, 0, &symbols) == 1, let symbol = symbols?.pointee,
                  let scalar = Unicode.Scalar(xkb_keysym_to_utf32(symbol)), scalar.value != 0 else { continue }
            if codes[Character(scalar)] == nil { codes[Character(scalar)] = code - 8 }
        }
        return (String(cString: raw), codes)
    }
}
