import BenchKit
import Glibc
import Strata

/// M6's memory per window, against GTK4: the gallery example's controls in a 560×600 window, in
/// Strata (`gallery-memory-subject`, the gallery's own GalleryKit, linking nothing but Strata)
/// and in GTK4 (`gtk-gallery-peer`, the same widgets from GTK's own), each in a process of its
/// own under the compositor, at rest after showing its content and a settle of 2 s. This driver
/// reads both processes' /proc/PID/smaps_rollup the same way, so neither side measures itself.
/// One window, then 10 windows in one process: what one more window costs is their difference
/// over 9. The sides take turns, and which goes first changes from one sample to the next.
@MainActor
enum MemoryPerWindow {
    /// Strata's PSS may be at most this fraction of GTK4's, for one window and for ten.
    static let pssGoal = 0.5
    static let manyWindows = 10

    /// One process at rest, as the driver read it.
    struct Reading {
        var rollup: SmapsRollup
        var fonts: [String]
        /// PSS of the Swift runtime's libraries: SwiftPM links them into the GTK peer too, which
        /// never calls them, so this much of GTK's figure is not GTK's.
        var swiftRuntime: Int
        /// The subject's `ready` line's `key=value` fields.
        var fields: [String: String]
    }

    enum Side: String, CaseIterable {
        case strata, gtk

        var program: String { self == .strata ? "gallery-memory-subject" : "gtk-gallery-peer" }
    }

    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        // Built beside this program (`swift build --package-path Benchmarks` builds all three).
        let binaries = BenchContext.programDirectory
        for side in Side.allCases where access(binaries + side.program, X_OK) != 0 {
            throw BenchError(message: "\(binaries + side.program) is missing: build every product of the Benchmarks package")
        }
        let samples = context.count(3, smoke: 1)
        var readings: [Side: [Int: [Reading]]] = [.strata: [:], .gtk: [:]]
        for sample in 0..<samples {
            for windows in [1, manyWindows] {
                let sides: [Side] = (recorder.round + sample).isMultiple(of: 2) ? [.strata, .gtk] : [.gtk, .strata]
                for side in sides {
                    readings[side]![windows, default: []].append(try read("'\(binaries + side.program)' --windows \(windows)", side: side))
                }
            }
        }
        let mebibyte = 1_048_576.0
        func pss(_ side: Side, _ windows: Int) -> Double? {
            SampleSet(readings[side]![windows]!.map { Double($0.rollup.proportional) / mebibyte }).median
        }
        func rss(_ side: Side, _ windows: Int) -> Double? {
            SampleSet(readings[side]![windows]!.map { Double($0.rollup.resident) / mebibyte }).median
        }
        func uss(_ side: Side, _ windows: Int) -> Double? {
            let values = readings[side]![windows]!.compactMap { $0.rollup.unique.map { Double($0) / mebibyte } }
            return values.count == samples ? SampleSet(values).median : nil
        }
        func suffix(_ windows: Int) -> String { windows == 1 ? "1_window" : "\(windows)_windows" }
        for side in Side.allCases {
            for windows in [1, manyWindows] {
                let values = readings[side]![windows]!
                recorder.keep("\(side)_pss_\(suffix(windows))_mib", values.map { Double($0.rollup.proportional) / mebibyte })
                recorder.keep("\(side)_rss_\(suffix(windows))_mib", values.map { Double($0.rollup.resident) / mebibyte })
            }
        }
        for windows in [1, manyWindows] {
            let suffix = suffix(windows)
            for side in Side.allCases {
                recorder.record("\(side)_pss_\(suffix)", pss(side, windows), unit: "MiB",
                                note: breakdown(readings[side]![windows]!.last, side: side))
                recorder.record("\(side)_rss_\(suffix)", rss(side, windows), unit: "MiB")
                recorder.record("\(side)_uss_\(suffix)", uss(side, windows), unit: "MiB",
                                note: "pages no other process maps: PSS moves with what else runs, this does not")
            }
            recorder.ratio("strata_over_gtk_pss_\(suffix)", pss(.strata, windows), over: pss(.gtk, windows), goal: .atMost(pssGoal),
                           note: "median of \(samples) process\(samples == 1 ? "" : "es") a side, taking turns")
        }
        for side in Side.allCases {
            let added = pss(side, manyWindows).flatMap { many in pss(side, 1).map { (many - $0) / Double(manyWindows - 1) } }
            recorder.record("\(side)_pss_per_added_window", added, unit: "MiB",
                            note: "(PSS of \(manyWindows) windows − PSS of 1) / \(manyWindows - 1)")
        }
        recorder.record("gtk_pss_swift_runtime_1_window",
                        SampleSet(readings[.gtk]![1]!.map { Double($0.swiftRuntime) / mebibyte }).median, unit: "MiB",
                        note: "SwiftPM links the Swift runtime into the C peer, which never calls it: part of GTK's PSS that is not GTK's")
        // What each loaded of fonts: GTK (pango, FreeType) maps the files; Strata reads them whole
        // into memory of its own, so its maps show none and it counts its faces itself.
        for side in Side.allCases {
            let fonts = readings[side]![1]!.last?.fonts ?? []
            recorder.record("\(side)_font_files_mapped", Double(fonts.count), unit: "files",
                            note: fonts.isEmpty ? "none" : fonts.map { String($0.split(separator: "/").last ?? "") }.joined(separator: ", "))
        }
        let strata = readings[.strata]![1]!.last?.fields
        recorder.record("strata_font_faces_read", strata?["font_faces"].flatMap { Double($0) }, unit: "faces",
                        note: strata?["font_face_bytes"].flatMap { Int($0) }.map { "\(Report.format(Double($0) / 1_048_576)) MiB read into the heap" })
    }

    /// Starts one side's process, waits for it to come to rest (`ready`), reads its memory and
    /// fonts, and ends it (the client's deinit sends SIGTERM and waits).
    private static func read(_ command: String, side: Side) throws -> Reading {
        let client = try LoggedClient(command, protocolLog: false)
        while let line = client.nextLine(before: client.start + 90) {
            if line.hasPrefix("error=") { throw BenchError(message: "\(side) failed: \(line.dropFirst(6))") }
            guard line.hasPrefix("ready") else { continue }
            let process = String(client.pid)
            let reading = Reading(rollup: try SmapsRollup.read(process: process), fonts: try MappedFonts.read(process: process),
                                  swiftRuntime: MappingPSS.bytes(inSmaps: try ProcFile.read("/proc/\(process)/smaps")) {
                                      $0.contains("/lib/swift/")
                                  },
                                  fields: reportFields(line).mapValues(String.init))
            return reading
        }
        throw BenchError(message: "\(side) (\(command)) was not at rest within 90 s")
    }

    /// Where one reading's PSS lies, and what the subject said of itself.
    private static func breakdown(_ reading: Reading?, side: Side) -> String? {
        guard let reading else { return nil }
        let rollup = reading.rollup
        func mebibytes(_ bytes: Int?) -> String { bytes.map { Report.format(Double($0) / 1_048_576) } ?? "?" }
        var parts = ["anonymous \(mebibytes(rollup.proportionalAnonymous))", "files \(mebibytes(rollup.proportionalFile))",
                     "shared memory \(mebibytes(rollup.proportionalShared)) MiB", "Swift runtime \(mebibytes(reading.swiftRuntime)) MiB"]
        if let renderer = reading.fields["renderer"] { parts.append(renderer) }
        for key in ["shm_bytes", "render_cache_bytes", "glyph_cache_bytes", "font_face_bytes"] {
            if let bytes = reading.fields[key].flatMap({ Int($0) }) { parts.append("\(key.dropLast(6)) \(mebibytes(bytes)) MiB") }
        }
        return parts.joined(separator: ", ")
    }
}
