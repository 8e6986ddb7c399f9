import FeedKit
import Glibc

/// The subject's command line: gtk-feed-peer's options that concern the run, with the same
/// meanings and limits (see Benchmarks/Sources/gtk-feed-peer/README.md).
struct Options {
    struct Phase {
        var pxPerFrame: Double
        var frames: Int
    }

    var phases: [Phase] = []
    var warmupFrames = 120
    /// The refresh rate that defines late frames and the click delay; nil: measured.
    var refreshHz: Double?
    var clicks = 1
    var startItem = 1000
    var json: String?
    var timeoutSeconds = 120.0
    var width = 1280.0
    var height = 800.0
    /// M7: print when the first complete frame was committed and presented, and exit.
    var firstFrame = false
    /// M9's grid variant: the photo grid's photos in a waterfall of this many columns instead of
    /// the feed; nil: the feed.
    var gridColumns: Int?
    /// The grid's photos (the feed has CONTENT.md's items).
    var items = FeedContent.itemCount
    /// M9's accessibility variant: the directory where the run and the listening assistive
    /// technology tell each other they are ready (AccessibilityProbe). With it the run waits
    /// for the assistive technology to walk the settled tree before scrolling, reads the
    /// bridge's statistics every frame, and at the end waits for its calls to stop; nil: none.
    var accessibilityHandshake: String?
    /// Where the feed's pictures are, as files `feed --export-assets` wrote (what GTK's peer
    /// reads); nil: drawn and encoded in memory.
    var assets: String?

    /// The most columns `--grid` takes, and the most items `--items` takes (gtk-feed-peer's limits).
    static let maximumGridColumns = 16, maximumItems = 1_000_000

    static let usage = """
        usage: feed-scroll-subject --phases PX:FRAMES[,PX:FRAMES...] [--warmup-frames N] [--refresh-hz HZ]
                                   [--clicks K] [--start-item I] [--size WxH] [--json FILE] [--timeout-seconds S]
                                   [--accessibility-handshake DIRECTORY] [--assets DIRECTORY]
               feed-scroll-subject --grid COLUMNS --phases PX:FRAMES[,...] [--items N] [--clicks 0] [the options above]
               feed-scroll-subject --first-frame [--size WxH] [--timeout-seconds S]
        """

    struct BadArgument: Error { let message: String }

    /// Parses `arguments` (without the program name); every value is range-checked.
    init(_ arguments: [String]) throws(BadArgument) {
        var rest = arguments[...]
        var clicksGiven = false
        func value(_ name: String) throws(BadArgument) -> String {
            guard let value = rest.popFirst() else { throw BadArgument(message: "\(name) needs a value") }
            return value
        }
        func number(_ name: String, _ range: ClosedRange<Double>) throws(BadArgument) -> Double {
            let text = try value(name)
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw BadArgument(message: "\(name) \(text): not a number in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(BadArgument) -> Int {
            let text = try value(name)
            guard let number = Int(text), range.contains(number) else {
                throw BadArgument(message: "\(name) \(text): not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--phases":
                let spec = try value(argument)
                for part in spec.split(separator: ",", omittingEmptySubsequences: false) {
                    let fields = part.split(separator: ":", omittingEmptySubsequences: false)
                    guard fields.count == 2, let px = Double(fields[0]), px.isFinite, px > 0, px <= 10_000,
                          let frames = Int(fields[1]), (1...100_000).contains(frames) else {
                        throw BadArgument(message: "--phases \(spec): each phase is PX:FRAMES, PX in (0, 10000], FRAMES in 1...100000")
                    }
                    phases.append(Phase(pxPerFrame: px, frames: frames))
                }
                guard phases.count <= 16 else { throw BadArgument(message: "--phases: at most 16 phases") }
            case "--warmup-frames": warmupFrames = try integer(argument, 0...100_000)
            case "--refresh-hz": refreshHz = try number(argument, 1...1_000)
            case "--clicks":
                clicks = try integer(argument, 0...1_000)
                clicksGiven = true
            case "--start-item": startItem = try integer(argument, 0...(Self.maximumItems - 1))
            case "--grid": gridColumns = try integer(argument, 1...Self.maximumGridColumns)
            case "--items": items = try integer(argument, 1...Self.maximumItems)
            case "--json": json = try value(argument)
            case "--timeout-seconds": timeoutSeconds = try number(argument, 1...3_600)
            case "--size":
                let text = try value(argument)
                let parts = text.split(separator: "x").compactMap { Double($0) }
                guard parts.count == 2, (64...8_192).contains(parts[0]), (64...8_192).contains(parts[1]) else {
                    throw BadArgument(message: "--size \(text): WxH, each 64...8192")
                }
                (width, height) = (parts[0], parts[1])
            case "--first-frame": firstFrame = true
            case "--accessibility-handshake": accessibilityHandshake = try value(argument)
            case "--assets": assets = try value(argument)
            case "--help", "-h": throw BadArgument(message: "")
            default: throw BadArgument(message: "unknown argument \(argument)")
            }
        }
        if gridColumns != nil {
            // The photos have no action: a click would measure nothing the feed does not.
            if clicksGiven && clicks > 0 {
                throw BadArgument(message: "--clicks \(clicks): the grid variant has no clicks (give --clicks 0 or leave it out)")
            }
            clicks = 0
            if firstFrame { throw BadArgument(message: "--first-frame shows the feed; it takes no --grid") }
        } else if items != FeedContent.itemCount {
            throw BadArgument(message: "--items \(items): only the grid's length can be set; the feed has \(FeedContent.itemCount) items")
        }
        guard startItem < items else { throw BadArgument(message: "--start-item \(startItem): the list has \(items) items") }
        if firstFrame {
            guard accessibilityHandshake == nil else { throw BadArgument(message: "--first-frame scrolls nothing to tell an assistive technology") }
            guard phases.isEmpty else { throw BadArgument(message: "--first-frame measures no phase") }
            return
        }
        guard !phases.isEmpty else { throw BadArgument(message: "--phases is required") }
        for phase in phases where clicks > 0 && phase.frames / clicks < 10 {
            throw BadArgument(message: "--clicks \(clicks): clicks must be at least 10 frames apart (a phase has \(phase.frames) frames)")
        }
    }
}
