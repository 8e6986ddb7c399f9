// The soak mode of strata-demo (STRATA_DEMO_SOAK=<seconds>, run by Scripts/soak): every second it
// samples what a leak would grow, resizes the window, and opens or closes a second window. It
// prints one JSON line per sample, then one per metric with its verdict, and fails when any
// metric grew after warm-up. STRATA_DEMO_SOAK_LEAK=1 leaks something of every metric each
// second (a descriptor, a Wayland object, 512 KiB of memory, a 256 KiB image in the image cache),
// to prove each check can fail.
import Foundation
import Glibc
import Strata

/// Resident memory in bytes, from /proc/self/statm (its second field, in pages); 0 if unreadable.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}

/// Open file descriptors: the entries of /proc/self/fd, less the one listing it.
func openDescriptors() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return 0 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { count += 1 }
    }
    return count - 1
}

/// Bytes held by the render caches: the process-wide text, glyph, font and image caches, and each
/// open window's bitmap pool. The soak judges their sum and prints both, to tell which one grew.
struct CacheBytes {
    var renderCaches: Int
    var bitmapPools: Int
    var total: Int { renderCaches + bitmapPools }

    @MainActor
    init(windows: [Window]) {
        renderCaches = RenderCaches.totalBytes
        bitmapPools = windows.reduce(0) { $0 + $1.host.bitmapPoolBytes }
    }
}

/// Writes one line to standard output at once (unbuffered), so a tee sees each sample as it is taken.
func emit(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// A metric the soak samples, and how its growth is judged.
enum SoakMetric: String, CaseIterable {
    case residentBytes = "rss_bytes"
    case openDescriptors = "fds"
    case waylandObjects = "wayland_objects"
    case cacheBytes = "cache_bytes"

    /// Counts of objects must come back to within one surface buffer: each buffer holds a memfd
    /// and two Wayland objects (its pool and itself), and a late sample may catch the compositor
    /// holding one buffer a moment longer than any early sample did (seen under sway, one
    /// sample in 600). A leak of one object every two minutes still fails a 10-minute soak.
    /// Memory is allowed the allocator's noise: arenas and fragmentation move RSS by a few MiB
    /// without a leak, so the larger of 2 MiB and 5%.
    /// The bitmap pools hold what is not on screen or being drawn at the instant of the sample,
    /// so a late peak may catch one frame more in the pool than the early one did: one frame of
    /// the largest size the window cycles through (4 bytes a pixel), and no more.
    var check: GrowthCheck {
        switch self {
        case .residentBytes: GrowthCheck(absoluteTolerance: 2 << 20, relativeTolerance: 0.05)
        case .openDescriptors: GrowthCheck(absoluteTolerance: 1)
        case .waylandObjects: GrowthCheck(absoluteTolerance: 2)
        case .cacheBytes:
            GrowthCheck(absoluteTolerance: Soak.sizes.map { Int($0.width * $0.height) * 4 }.max() ?? 0)
        }
    }
}

/// One reading, one second apart.
struct SoakSample {
    /// Seconds since the soak began.
    var seconds: Double
    /// Each metric's value.
    var values: [SoakMetric: Int]
    /// The main window's content size, to show the resizes took effect.
    var width: Int, height: Int
    /// Frames the main window committed so far: flat while the compositor hides it.
    var frames: Int
    /// Whether the second window was open.
    var secondWindow: Bool
    /// The parts of `cacheBytes`.
    var caches: CacheBytes

    /// The JSON line Scripts/soak keeps.
    var json: String {
        let metrics = SoakMetric.allCases.map { "\"\($0.rawValue)\":\(values[$0] ?? 0)" }.joined(separator: ",")
        return "{\"t\":\(String(format: "%.2f", seconds)),\(metrics),\"width\":\(width),\"height\":\(height),"
            + "\"frames\":\(frames),\"second_window\":\(secondWindow),\"render_cache_bytes\":\(caches.renderCaches),"
            + "\"bitmap_pool_bytes\":\(caches.bitmapPools)}"
    }
}

/// A bad STRATA_DEMO_SOAK value.
struct SoakError: Error, CustomStringConvertible {
    /// What was wrong.
    var description: String
}

/// Drives the soak: a one-second timer that samples, resizes, toggles the second window and,
/// when asked, leaks.
@MainActor
final class Soak {
    /// The sizes the main window cycles through, one a second; a fixed cycle, so the bitmap pool
    /// sees the same sizes again and again and settles.
    nonisolated static let sizes = [Size(width: 720, height: 460), Size(width: 800, height: 520),
                        Size(width: 640, height: 420), Size(width: 760, height: 500), Size(width: 680, height: 440)]

    private let session: WaylandSession
    private let window: Window
    private let duration: Double
    private let leaks: Bool
    private let start = ContinuousClock.now
    private var seconds = 0
    private var samples: [SoakSample] = []
    private var second: Window?
    private var leakedDescriptors: [Int32] = []
    private var leakedObjects: [WlRegion] = []
    private var leakedMemory: [UnsafeMutableRawPointer] = []
    /// A 256 × 256 PNG, which the image cache holds decoded: 256 KiB a key.
    private lazy var leakedImage: [UInt8] = {
        guard let bitmap = try? Bitmap(width: 256, height: 256) else { return [] }
        Canvas(bitmap: bitmap).fill(Rect(x: 0, y: 0, width: 256, height: 256), color: Color(rgb: 0xFF2D55))
        return (try? PNG.encode(bitmap)) ?? []
    }()

    /// A soak from STRATA_DEMO_SOAK and STRATA_DEMO_SOAK_LEAK; nil when STRATA_DEMO_SOAK is unset.
    static func fromEnvironment(session: WaylandSession, window: Window) throws(SoakError) -> Soak? {
        guard let value = getenv("STRATA_DEMO_SOAK").map({ String(cString: $0) }) else { return nil }
        guard let duration = Double(value), duration.isFinite, duration >= 1 else {
            throw SoakError(description: "STRATA_DEMO_SOAK must be a number of seconds, at least 1, not \"\(value)\"")
        }
        let leaks = getenv("STRATA_DEMO_SOAK_LEAK").map { String(cString: $0) == "1" } ?? false
        return Soak(session: session, window: window, duration: duration, leaks: leaks)
    }

    private init(session: WaylandSession, window: Window, duration: Double, leaks: Bool) {
        self.session = session
        self.window = window
        self.duration = duration
        self.leaks = leaks
        session.loop.addTimer(after: .seconds(1), repeating: .seconds(1)) { [weak self] in self?.everySecond() }
    }

    /// Samples first, so each sample sees the previous second's changes settled, then changes things.
    private func everySecond() {
        seconds += 1
        let elapsed = milliseconds(ContinuousClock.now - start) / 1000
        let caches = CacheBytes(windows: [window] + (second.map { [$0] } ?? []))
        let sample = SoakSample(
            seconds: elapsed,
            values: [.residentBytes: residentBytes(), .openDescriptors: openDescriptors(),
                     .waylandObjects: Proxy.liveCount, .cacheBytes: caches.total],
            width: Int(window.contentSize.width), height: Int(window.contentSize.height),
            frames: window.host.statistics.framesCommitted, secondWindow: second != nil, caches: caches)
        samples.append(sample)
        emit(sample.json)
        if elapsed >= duration {
            second?.close()
            second = nil
            session.loop.stop()
            return
        }

        window.resize(to: Self.sizes[seconds % Self.sizes.count])
        if let existing = second {
            existing.close()
            second = nil
        } else {
            second = openSecondWindow()
        }
        if leaks {
            leakedDescriptors.append(open("/dev/null", O_RDONLY | O_CLOEXEC))
            if let region = try? session.compositor.createRegion() { leakedObjects.append(region) }
            // Touched, or it would not be resident.
            if let block = malloc(512 << 10) {
                memset(block, 1, 512 << 10)
                leakedMemory.append(block)
            }
            _ = try? ImageCache.shared.image(forKey: "soak-leak-\(seconds)", data: leakedImage)
        }
    }

    /// A small window with a label and an asynchronously drawn card; nil (and a message) if the
    /// compositor refuses it.
    private func openSecondWindow() -> Window? {
        do {
            let window = try Window(session: session, title: "Strata soak · second", appID: "org.strata.demo.second",
                                    size: Size(width: 320, height: 200))
            window.backgroundColor = Color(rgb: 0xF2F2F7)
            let label = Label(text: "Second window · 第二个窗口", font: Font(size: 15, weight: .semibold), color: Color(rgb: 0x1C1C1E))
            let card = AsyncLayer()
            let phase = Double(seconds)
            card.displayClosure = { _ in
                DisplayTask(display: { canvas, size, isCancelled in
                    drawWave(canvas, size, phase: phase, hue: 0.6, isCancelled: isCancelled)
                })
            }
            card.cornerRadius = 10
            card.clipsToBounds = true
            window.contentLayer.addSublayer(label)
            window.contentLayer.addSublayer(card)
            window.contentLayer.layoutHandler = { content in
                let size = content.bounds.size
                label.frame = Rect(x: 12, y: 8, width: size.width - 24, height: 24)
                card.frame = Rect(x: 12, y: 40, width: size.width - 24, height: max(size.height - 52, 1))
            }
            return window
        } catch {
            let line = "strata-demo: soak: could not open the second window: \(error)\n"
            _ = write(STDERR_FILENO, line, line.utf8.count)
            return nil
        }
    }

    /// Each render cache's entries, bytes, hits, misses and evictions at the end: which cache a
    /// growing `render_cache_bytes` came from, and whether its keys ever repeat.
    private func cacheBreakdown() -> String {
        let fonts = FontLibrary.shared.cacheStatistics
        let glyphs = FontLibrary.shared.glyphCache.counts
        let caches: [(String, CacheStatistics)] = [
            ("layouts", RenderCaches.layouts), ("shaped_runs", RenderCaches.shapedRuns),
            ("corner_masks", RenderCaches.cornerMasks),
            ("glyphs", CacheStatistics(hits: glyphs.hits, misses: glyphs.misses, evictions: glyphs.evictions, bytes: glyphs.bytes)),
            ("faces", fonts.faces), ("fallback_chains", fonts.chains), ("characters", fonts.characters),
            ("images", ImageCache.shared.statistics),
        ]
        let fields = caches.map { name, statistics in
            "\"\(name)\":{\"count\":\(statistics.count),\"bytes\":\(statistics.bytes),\"hits\":\(statistics.hits),"
                + "\"misses\":\(statistics.misses),\"evictions\":\(statistics.evictions)}"
        }
        return "{\"caches\":{" + fields.joined(separator: ",") + "}}"
    }

    /// Prints each metric's verdict and an overall one; true when every metric passed and the
    /// soak ran its full length (a window closed early ends it short, which is a failure too).
    func finish() -> Bool {
        var passed = true
        for metric in SoakMetric.allCases {
            let result = metric.check.evaluate(samples.map { $0.values[metric] ?? 0 })
            passed = passed && result.passed
            emit("{\"metric\":\"\(metric.rawValue)\",\"start\":\(result.start),\"end\":\(result.end),\"max\":\(result.max),"
                + "\"warm_up_samples\":\(result.warmUpSamples),\"early_peak\":\(result.earlyPeak),\"late_peak\":\(result.latePeak),"
                + "\"limit\":\(result.limit),\"verdict\":\"\(result.verdict.rawValue)\"}")
        }
        emit(cacheBreakdown())
        let elapsed = samples.last?.seconds ?? 0
        let complete = elapsed >= duration
        passed = passed && complete
        emit("{\"soak\":\"\(passed ? "pass" : "fail")\",\"samples\":\(samples.count),\"seconds\":\(String(format: "%.1f", elapsed)),"
            + "\"complete\":\(complete),\"leak\":\(leaks)}")
        return passed
    }
}
