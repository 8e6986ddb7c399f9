import ArgumentParser
import BenchKit
import Glibc
import Peers
import Strata

/// M6 `memory`, in a process of its own (`memory-subject`), so that nothing the other metrics
/// did is in its caches or its heap: a window under the compositor whose labels cycle through a
/// corpus of 3 200 distinct Chinese characters, every frame new strings (no layout is reused;
/// every glyph is looked up again). Warm-up lasts until the subject's own text caches are full
/// and evicting. Then resident memory and PSS are sampled every few frames for minutes, and
/// growth is the least-squares slope over them, not one sample against another. Per window: the
/// shared-memory bytes against W×H×4, buffers made after warm-up, and the glyph cache's size,
/// bound and hit rate over the measured frames. Then memory per window, against GTK4
/// (`MemoryPerWindow`).
@MainActor
enum Memory {
    /// U+4E00 onwards, the most common block of CJK ideographs; WenQuanYi Micro Hei has them all.
    static let corpus: [Character] = (0..<3200).map { Character(Unicode.Scalar(0x4E00 + $0)!) }
    static let (labels, charactersPerLabel) = (8, 24)
    /// The most resident memory may grow a minute in the steady state, beyond what the render
    /// caches hold: 6 MiB an hour, far below any leak of a few bytes a frame.
    static let slopeGoal = 0.1

    static func run(_ context: BenchContext, _ recorder: inout MetricRecorder) throws {
        try WestonMetrics.requireCompositor()
        let seconds = context.smoke ? 1.0 : 180
        let client = try LoggedClient("'\(CommandLine.arguments[0])' memory-subject --seconds \(seconds)" + (context.smoke ? " --smoke" : ""),
                                      protocolLog: false)
        var fields: [String: Substring] = [:]
        let deadline = client.start + MemorySubject.timeout(seconds: seconds) + 5
        while let line = client.nextLine(before: deadline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = line[line.index(after: equals)...]
        }
        if let failure = fields["error"] { throw BenchError(message: "the memory subject failed: \(failure)") }
        func number(_ key: String) throws -> Double {
            guard let text = fields[key], let value = Double(text) else { throw BenchError(message: "the memory subject did not report \(key)") }
            return value
        }
        func series(_ key: String) throws -> [Double] {
            guard let text = fields[key] else { throw BenchError(message: "the memory subject did not report \(key)") }
            let values = text.split(separator: ",").compactMap { Double($0) }
            guard values.count == text.split(separator: ",").count else { throw BenchError(message: "\(key) has a value that is not a number") }
            return values
        }
        let times = try series("sample_seconds"), rss = try series("rss_bytes"), pss = try series("pss_bytes")
        let caches = try series("cache_bytes"), heap = try series("heap_bytes")
        guard times.count == rss.count, rss.count == pss.count, pss.count == caches.count, caches.count == heap.count else {
            throw BenchError(message: "the memory subject's samples differ in length")
        }
        let mebibyte = 1_048_576.0
        /// MiB a minute.
        func slope(_ values: [Double]) -> Double? {
            Fit.slope(x: times, y: values).map { $0 * 60 / mebibyte }
        }
        let frames = try number("frames_measured")
        recorder.record("corpus_distinct_characters", Double(Set(corpus).count), unit: "characters")
        recorder.record("frames_measured", frames, unit: "frames",
                        note: "over \(Report.format(times.last ?? 0)) s, \(times.count) samples, after \(Int(try number("warmup_frames"))) frames "
                            + "of warm-up in a process of its own")
        recorder.record("shm_bytes_over_wxhx4", try number("shm_bytes_over_wxhx4"), unit: "x", goal: .atMost(2),
                        note: fields["surface"].map { String($0) })
        recorder.record("buffers_made_after_warmup", try number("buffers_made_after_warmup"), unit: "buffers", goal: .exactly(0))
        recorder.record("rss_slope", slope(rss), unit: "MiB/min")
        recorder.record("pss_slope", slope(pss), unit: "MiB/min")
        recorder.record("render_cache_slope", slope(caches), unit: "MiB/min", note: "all text, glyph and image caches, by their own count")
        recorder.record("heap_in_use_slope", slope(heap), unit: "MiB/min",
                        note: "bytes malloc handed out and did not get back (mallinfo2): below the resident slope, the rest is the allocator's")
        recorder.record("rss_slope_beyond_caches", slope(zip(rss, caches).map { $0 - $1 }), unit: "MiB/min", goal: .atMost(slopeGoal),
                        note: "resident memory less what the render caches hold, by design up to their budgets")
        recorder.record("rss_at_end", (rss.last ?? .nan) / mebibyte, unit: "MiB")
        recorder.record("pss_at_end", (pss.last ?? .nan) / mebibyte, unit: "MiB")
        recorder.record("glyph_cache_bytes", try number("glyph_cache_bytes") / mebibyte, unit: "MiB")
        recorder.record("glyph_cache_bound", try number("glyph_cache_bound") / mebibyte, unit: "MiB")
        recorder.ratio("glyph_cache_bytes_over_bound", try number("glyph_cache_bytes"), over: try number("glyph_cache_bound"), goal: .atMost(1))
        let lookups = try number("glyph_lookups")
        recorder.record("glyph_lookups", lookups, unit: "lookups")
        recorder.record("glyph_cache_hit_rate", lookups > 0 ? try number("glyph_hits") / lookups * 100 : nil, unit: "%",
                        goal: context.smoke ? nil : .atLeast(99.9),
                        note: lookups > 0 ? nil : "no glyph was looked up: layouts were reused")
        recorder.record("glyph_cache_evictions", try number("glyph_evictions"), unit: "glyphs")
        if let path = context.plotPath("m6-memory.png") {
            let first = rss.first ?? 0, firstPSS = pss.first ?? 0, firstCaches = caches.first ?? 0
            try Plot.scatter([
                .init(name: "resident memory", color: Color(rgb: 0x0A84FF), values: rss.map { ($0 - first) / mebibyte }),
                .init(name: "PSS", color: Color(rgb: 0x30B0C7), values: pss.map { ($0 - firstPSS) / mebibyte }),
                .init(name: "render caches", color: Color(rgb: 0xFF9500), values: caches.map { ($0 - firstCaches) / mebibyte }),
                .init(name: "heap in use", color: Color(rgb: 0xAF52DE), values: heap.map { ($0 - (heap.first ?? 0)) / mebibyte }),
            ], title: "M6: growth after warm-up, new CJK text every frame (one sample every \(MemorySubject.sampleFrames) frames)",
               unit: "MiB", xLabel: "sample", to: path)
        }
        // The subject above is gone: the per-window processes have the machine to themselves.
        try MemoryPerWindow.run(context, &recorder)
    }
}

/// M6's subject, a process of its own: the window, the warm-up, and the samples, printed as
/// `key=value` lines (series comma-separated); `error=…` on failure.
struct MemorySubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "memory-subject", abstract: "M6's subject: memory over time.",
                                                    shouldDisplay: false)
    @Option(help: "Seconds sampled after warm-up.") var seconds = 180.0
    @Flag(help: "Two frames of warm-up instead of full caches.") var smoke = false

    /// One sample every this many frames.
    static let sampleFrames = 10

    /// The longest a subject may take: the warm-up's 5 000 frames at their slowest, and the samples.
    static func timeout(seconds: Double) -> Double { seconds + 240 }

    func run() throws {
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else { throw ValidationError("memory-subject --seconds (0, 3600]") }
        // A stuck main loop cannot notice a deadline; the alarm's default action ends the process.
        alarm(UInt32(Self.timeout(seconds: seconds).rounded(.up)))
        do {
            try MainActor.assumeIsolated { try measure() }
        } catch {
            print("error=\(error)")
        }
    }

    @MainActor
    func measure() throws {
        let (width, height) = (480.0, 320.0)
        let session = try WaylandSession.connect(loop: MainLoop())
        let window = try Window(session: session, title: "memory", size: Size(width: width, height: height))
        defer { window.close() }
        let corpus = Memory.corpus
        var rows: [Label] = []
        for index in 0..<Memory.labels {
            let label = Label(text: "", font: Font(size: 16), color: .black)
            label.frame = Rect(x: 8, y: 8 + Double(index) * 36, width: width - 16, height: 32)
            window.contentLayer.addSublayer(label)
            rows.append(label)
        }
        var offset = 0, frame = 0
        /// One frame of new strings: each row the next run of the corpus after the frame's number.
        /// The run repeats every 50 frames, the number every 1 000, so a string comes back only
        /// after the layout cache has evicted it, and the numbers' shaped runs stay bounded.
        func nextFrame() throws {
            frame += 1
            for row in rows {
                let text = (0..<Memory.charactersPerLabel).map { corpus[(offset + $0) % corpus.count] }
                row.text = "\(frame % 1000) " + String(text)
                offset += Memory.charactersPerLabel
            }
            let committed = window.host.statistics.framesCommitted
            let deadline = monotonicSeconds() + 5
            while window.host.statistics.framesCommitted == committed {
                guard monotonicSeconds() < deadline else { throw BenchError(message: "frame \(frame) was not committed within 5 s") }
                try session.loop.runOnce(timeout: .milliseconds(50))
            }
        }
        // Warm-up by this process's own caches: every number's run shaped once (1 000 frames),
        // and on until the layout cache, which every new string adds to, is full and evicting.
        var warmUp = 0
        while smoke ? warmUp < 2 : (warmUp < 1000 || RenderCaches.layouts.evictions == 0) {
            guard warmUp < 5000 else { throw BenchError(message: "the text caches were not full after 5000 frames") }
            try nextFrame()
            warmUp += 1
        }
        let glyphsBefore = FontLibrary.shared.glyphCache.counts
        let buffersBefore = window.surfaceBuffers.allocated
        var times: [Double] = [], rss: [Int] = [], pss: [Int] = [], caches: [Int] = [], heap: [Int] = []
        let start = monotonicSeconds()
        var measured = 0
        while true {
            if measured % Self.sampleFrames == 0 {
                let usage = try MemoryUsage.read()
                times.append(monotonicSeconds() - start)
                rss.append(usage.resident)
                pss.append(usage.proportional)
                caches.append(RenderCaches.totalBytes)
                heap.append(usage.heapInUse)
                if times.count >= 2, times.last! >= seconds { break }
            }
            try nextFrame()
            measured += 1
        }
        let glyphs = FontLibrary.shared.glyphCache.counts
        let surface = window.surfaceBuffers
        let pixels = window.host.size.width * window.host.scale * window.host.size.height * window.host.scale
        func list(_ values: [some BinaryInteger]) -> String { values.map { String($0) }.joined(separator: ",") }
        print("warmup_frames=\(warmUp)")
        print("frames_measured=\(measured)")
        print("surface=\(surface.count) buffers of the window's \(Int(window.host.size.width))×\(Int(window.host.size.height)) surface")
        print("shm_bytes_over_wxhx4=\(Double(surface.bytes) / (pixels * 4))")
        print("buffers_made_after_warmup=\(surface.allocated - buffersBefore)")
        print("glyph_cache_bytes=\(glyphs.bytes)")
        print("glyph_cache_bound=\(FontLibrary.shared.glyphCache.capacityBytes)")
        print("glyph_lookups=\((glyphs.hits + glyphs.misses) - (glyphsBefore.hits + glyphsBefore.misses))")
        print("glyph_hits=\(glyphs.hits - glyphsBefore.hits)")
        print("glyph_evictions=\(glyphs.evictions - glyphsBefore.evictions)")
        print("sample_seconds=" + times.map { String($0) }.joined(separator: ","))
        print("rss_bytes=" + list(rss))
        print("pss_bytes=" + list(pss))
        print("cache_bytes=" + list(caches))
        print("heap_bytes=" + list(heap))
    }
}

/// This process's memory, from /proc/self/smaps_rollup.
struct MemoryUsage {
    /// Resident set size, in bytes.
    var resident: Int
    /// Proportional set size: shared pages divided among the processes that map them.
    var proportional: Int
    /// Bytes malloc has handed out and not had back (`mallinfo2`): when resident memory grows
    /// and this does not, the growth is the allocator's, not memory the program still holds.
    var heapInUse: Int

    static func read() throws -> MemoryUsage {
        let rollup = try SmapsRollup.read(process: "self")
        return MemoryUsage(resident: rollup.resident, proportional: rollup.proportional,
                           heapInUse: Int(clamping: peers_malloc_bytes_in_use()))
    }
}

/// A process's memory as the kernel sums it over all its mappings in /proc/PID/smaps_rollup, in
/// bytes: the same reading for this process and for another one (the per-window subjects, read
/// by the driver so that Strata's and GTK's are read by the same code).
struct SmapsRollup: Equatable {
    /// Resident set size.
    var resident: Int
    /// Proportional set size: shared pages divided among the processes that map them.
    var proportional: Int
    /// The PSS split by what backs it (Linux 5.x and later; nil on older kernels): anonymous
    /// memory (heaps, stacks), files (libraries, fonts, caches), and shared memory (memfds such as
    /// wl_shm buffers).
    var proportionalAnonymous: Int?
    var proportionalFile: Int?
    var proportionalShared: Int?
    /// Pages only this process maps (its unique set size): unlike PSS, it does not move with what
    /// other processes on the machine happen to map of the same libraries and fonts.
    var unique: Int?

    /// `process` is a pid or "self".
    static func read(process: String) throws -> SmapsRollup {
        try SmapsRollup(parsing: try ProcFile.read("/proc/\(process)/smaps_rollup"), source: "/proc/\(process)/smaps_rollup")
    }

    /// Parses the file's `Key:   value kB` lines; `source` names it in errors. Throws when Rss or
    /// Pss is missing, or a value is not a whole number of kB.
    init(parsing text: String, source: String) throws {
        var values: [Substring: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let words = line[line.index(after: colon)...].split(separator: " ")
            // The header line (addresses, "[rollup]") has a colon too, but not a "kB" value.
            guard words.count == 2, words[1] == "kB" else { continue }
            guard let kibibytes = Int(words[0]), kibibytes >= 0 else {
                throw BenchError(message: "\(source): \(line[..<colon]) is not a number of kB")
            }
            values[line[..<colon]] = kibibytes * 1024
        }
        guard let resident = values["Rss"], let proportional = values["Pss"] else {
            throw BenchError(message: "\(source) has no Rss or Pss")
        }
        self.resident = resident
        self.proportional = proportional
        proportionalAnonymous = values["Pss_Anon"]
        proportionalFile = values["Pss_File"]
        proportionalShared = values["Pss_Shmem"]
        unique = values["Private_Clean"].flatMap { clean in values["Private_Dirty"].map { clean + $0 } }
    }
}

/// The PSS of some of a process's mappings, chosen by path, from /proc/PID/smaps (one entry per
/// mapping): how much of a process's memory is one library's, for instance.
enum MappingPSS {
    /// The bytes of PSS of the mappings in `smaps` whose path `matches` accepts.
    static func bytes(inSmaps smaps: String, where matches: (String) -> Bool) -> Int {
        var total = 0, counting = false
        for line in smaps.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 5)
            // A mapping's header: an address range, then its permissions, offset, device, inode, path.
            if words.count >= 5, words[0].contains("-"), words[1].count == 4, !words[0].hasSuffix(":") {
                counting = words.count == 6 && matches(String(words[5].drop { $0 == " " }))
            } else if counting, words.first == "Pss:", words.count >= 2, let kibibytes = Int(words[1]) {
                total += kibibytes * 1024
            }
        }
        return total
    }
}

/// The font files a process has mapped, from its /proc/PID/maps: what each toolkit really loaded,
/// whatever it asked fontconfig for.
enum MappedFonts {
    static let extensions = [".ttf", ".otf", ".ttc", ".otc", ".pfb", ".pcf", ".pcf.gz", ".woff", ".woff2"]

    /// The distinct paths of font files in `maps`, sorted.
    static func paths(inMaps maps: String) -> [String] {
        var paths = Set<String>()
        for line in maps.split(separator: "\n") {
            // The path is the sixth field and may hold spaces; it starts at the first "/".
            guard let slash = line.firstIndex(of: "/") else { continue }
            var path = String(line[slash...])
            if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
            let lowered = path.lowercased()
            if extensions.contains(where: { lowered.hasSuffix($0) }) { paths.insert(path) }
        }
        return paths.sorted()
    }

    static func read(process: String) throws -> [String] {
        paths(inMaps: try ProcFile.read("/proc/\(process)/maps"))
    }
}

/// A file under /proc, read to its end. Foundation's `String(contentsOfFile:)` stops after its
/// first read, and the kernel hands out /proc/PID/smaps and maps a page or so per read, so it
/// would see only their first few mappings.
enum ProcFile {
    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchError(message: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw BenchError(message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
