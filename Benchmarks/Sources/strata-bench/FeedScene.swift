import Foundation
import Glibc
import Strata
import Synchronization

/// One entry of the feed: text and an encoded PNG that no other item shares, so neither the
/// layout cache nor any image cache can answer for it.
struct FeedItem: Sendable {
    /// Unique across every item of a process; also drawn into the card as its code.
    let serial: Int
    let title: String
    let body: String
    let png: [UInt8]

    /// The value the card's code carries: the low 16 bits of the serial.
    var code: Int { serial & 0xFFFF }
}

/// Generated feed items: Latin and CJK text from a seeded generator, and a distinct photo-like
/// PNG per item (a gradient with grain, so it compresses and decodes like a small photo).
enum FeedContent {
    /// The photo's encoded size in pixels: twice its size in the card, as a feed serves one
    /// size for HiDPI displays.
    static let photoPixels = (width: 624, height: 352)

    /// `count` items with serials from `firstSerial`.
    static func items(count: Int, firstSerial: Int) throws -> [FeedItem] {
        var random = SplitMix(seed: UInt64(firstSerial) &* 0x9E37_79B9 &+ 17)
        var items: [FeedItem] = []
        items.reserveCapacity(count)
        for offset in 0..<count {
            let serial = firstSerial + offset
            let png = try PNG.encode(photo(&random))
            items.append(FeedItem(serial: serial, title: title(serial, &random), body: body(&random), png: png))
        }
        return items
    }

    private static let syllables = ["ka", "lo", "mi", "ren", "tas", "vo", "ple", "dun", "sir", "el", "qua", "bri", "not", "zan", "hu", "fe"]

    private static func word(_ random: inout SplitMix) -> String {
        (0..<(2 + random.next(3))).map { _ in syllables[random.next(syllables.count)] }.joined()
    }

    private static func title(_ serial: Int, _ random: inout SplitMix) -> String {
        "#\(serial) " + (0..<3).map { _ in word(&random) }.joined(separator: " ").capitalizedFirst
    }

    /// About 200 characters: runs of CJK ideographs (from the 8 700 most common code points of
    /// the unified block) between Latin words, with CJK punctuation.
    private static func body(_ random: inout SplitMix) -> String {
        var text = ""
        while text.unicodeScalars.count < 200 {
            if random.next(3) == 0 {
                text += word(&random) + " "
            } else {
                for _ in 0..<(3 + random.next(9)) {
                    text.unicodeScalars.append(Unicode.Scalar(UInt32(0x4E00 + random.next(0x2200)))!)
                }
                text += random.next(2) == 0 ? "，" : "。"
            }
        }
        return text
    }

    private static func photo(_ random: inout SplitMix) throws -> Bitmap {
        let (width, height) = photoPixels
        let bitmap = try Bitmap(width: width, height: height)
        let from = (r: random.next(256), g: random.next(256), b: random.next(256))
        let to = (r: random.next(256), g: random.next(256), b: random.next(256))
        // Written through `pixels`: the bitmap is new and no other thread has it.
        for y in 0..<height {
            let row = bitmap.pixels + y * bitmap.stride
            for x in 0..<width {
                let t = (x + y) * 256 / (width + height)
                let grain = random.next(24)
                func channel(_ a: Int, _ b: Int) -> UInt32 { UInt32(min(255, (a * (256 - t) + b * t) / 256 + grain)) }
                let argb = 0xFF00_0000 | channel(from.r, to.r) << 16 | channel(from.g, to.g) << 8 | channel(from.b, to.b)
                row.storeBytes(of: argb, toByteOffset: x * 4, as: UInt32.self)
            }
        }
        return bitmap
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// A feed card: one asynchronously rendered layer, as Graver draws a cell, whose display task
/// lays out the item's text and decodes its PNG, a full-width photo (on a render queue, or inline
/// in sync mode).
/// Along its top edge it draws its item's code, 18 blocks of 4 px, so that a composed frame tells
/// which item each visible card shows.
@MainActor
final class FeedCard: AsyncLayer, AsyncLayerDelegate {
    /// The item shown; nil until bound.
    private(set) var item: FeedItem?
    /// Where the code's first block sits in the card. A failed decode or an empty layout leaves
    /// the code out, so such a card never reads as final.
    nonisolated static let codeOrigin = Point(x: 20, y: 2)
    nonisolated static let codeBits = 18
    nonisolated static let codeBlock = 4.0
    nonisolated static let one = Color(rgb: 0xFF0000)
    nonisolated static let zero = Color(rgb: 0x0000FF)
    /// Cards drawn on the main thread so far: a check that async mode really leaves it alone.
    nonisolated static let drawnOnMainThread = Atomic<Int>(0)

    override init() {
        super.init()
        delegate = self
        backgroundColor = .white
        cornerRadius = 10
        // A reused card shows blank, never its previous item, until its new render arrives.
        clearsContentsBeforeAsynchronousDisplay = true
    }

    /// Shows `item`, drawn at this tick.
    func bind(_ item: FeedItem) {
        self.item = item
        setNeedsDisplay()
    }

    /// The blocks' colours: a start bit of 1, 16 bits of the code, and an even-parity bit.
    nonisolated static func bits(of code: Int) -> [Bool] {
        let payload = (0..<16).map { code >> (15 - $0) & 1 == 1 }
        return [true] + payload + [payload.filter { $0 }.count % 2 == 1]
    }

    /// The code that `bits` encode, or nil if they are not a valid code.
    nonisolated static func code(of bits: [Bool]) -> Int? {
        guard bits.count == codeBits, bits[0], bits[1...16].filter({ $0 }).count % 2 == 1 ? bits[17] : !bits[17] else { return nil }
        return bits[1...16].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
    }

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        guard let item else { return DisplayTask(display: nil) }
        let scale = host?.scale ?? 1
        return DisplayTask(display: { canvas, size, isCancelled in
            if Thread.isMainThread { Self.drawnOnMainThread.add(1, ordering: .relaxed) }
            var text = AttributedText(item.title + "\n", style: TextStyle(font: Font(size: 15, weight: .bold), color: Color(rgb: 0x1C1C1E)))
            text.append(item.body, style: TextStyle(font: Font(size: 13), color: Color(rgb: 0x3A3A3C)))
            let options = TextLayoutOptions(width: size.width - 24, maximumLines: 6, lineBreakMode: .truncatingTail)
            let layout = TextLayout.cached(text, options: options, scale: scale)
            guard !layout.lines.isEmpty, !isCancelled() else { return }
            canvas.draw(layout, at: Point(x: 12, y: 10))
            guard let image = try? PNG.decode(item.png), !isCancelled() else { return }
            canvas.draw(image, in: Rect(x: 12, y: size.height - 188, width: size.width - 24, height: 176), contentMode: .aspectFill, cornerRadius: 8)
            // Last: the code says the whole card was drawn.
            Self.drawCode(item.code, in: canvas, at: Self.codeOrigin)
        })
    }

    /// Draws `code`'s blocks from `origin`, in the canvas's user units.
    nonisolated static func drawCode(_ code: Int, in canvas: Canvas, at origin: Point) {
        for (index, bit) in bits(of: code).enumerated() {
            canvas.fill(Rect(x: origin.x + Double(index) * codeBlock, y: origin.y, width: codeBlock, height: codeBlock),
                        color: bit ? one : zero)
        }
    }
}

/// A feed of `FeedCard`s scrolled a fixed step a frame, as `MainThreadOffload` steps it and
/// `FeedLatencyTracker` follows its items. Main actor only.
@MainActor
protocol ScrollingFeed: AnyObject {
    /// Called with each item whose place enters the viewport while scrolling (not the first
    /// screen's), in the tick it enters.
    var onEnter: ((FeedItem) -> Void)? { get set }
    /// The part of the surface the feed shows, in surface points.
    var viewport: Rect { get }
    /// How far the feed has scrolled, in points.
    var offset: Double { get }
    /// Whether the feed has no work of its own outstanding; the host's is checked apart.
    var isSettled: Bool { get }
    /// One frame: scrolls `FeedScene.scrollStep` further.
    func advance()
    /// Where the code of item `serial` is laid out now, in surface points, whether or not a card
    /// shows it yet; nil once it has no place in the feed (its card went to another item).
    func codeOrigin(ofItem serial: Int) -> Point?
}

/// The feed: a clipped column of reused cards scrolled 24 px per frame. A card that scrolls out
/// at the top moves below the last one and is bound to the next item when it enters the viewport
/// (as a table view asks for a cell when it becomes visible), in the same tick.
@MainActor
final class FeedScene: ScrollingFeed {
    static let viewport = Size(width: 360, height: 640)
    static let cardHeight = 320.0
    /// 14 frames of scroll, a multiple of 24: a card's top then enters 16 pt above the bottom
    /// edge, its code visible.
    static let pitch = 336.0
    static let scrollStep = 24.0

    let content = Layer()
    /// Top to bottom.
    private(set) var cards: [FeedCard] = []
    private var items: [FeedItem]
    private var nextItem = 0
    /// Cards below the viewport, waiting to be bound when they enter.
    private var waiting: Set<ObjectIdentifier> = []
    private(set) var offset = 0.0
    /// Items enter as they are bound: a card is bound in the tick it enters.
    var onEnter: ((FeedItem) -> Void)?

    /// The number of items a run of `frames` frames binds, at most.
    static func itemsNeeded(frames: Int) -> Int {
        Int((viewport.height + Double(frames) * scrollStep) / pitch) + 2
    }

    init(items: [FeedItem], asynchronous: Bool, in parent: Layer) {
        self.items = items
        content.frame = Rect(origin: .zero, size: Self.viewport)
        content.clipsToBounds = true
        content.backgroundColor = Color(rgb: 0xF2F2F7)
        parent.addSublayer(content)
        // Enough cards to cover the viewport at any offset, and one below it.
        let count = Int((Self.viewport.height / Self.pitch).rounded(.up)) + 2
        for index in 0..<count {
            let card = FeedCard()
            card.displaysAsynchronously = asynchronous
            card.frame = Rect(x: 12, y: Double(index) * Self.pitch, width: Self.viewport.width - 24, height: Self.cardHeight)
            content.addSublayer(card)
            cards.append(card)
            if card.frame.minY < Self.viewport.height, let item = takeItem() {
                card.bind(item)
            } else {
                waiting.insert(ObjectIdentifier(card))
            }
        }
    }

    private func takeItem() -> FeedItem? {
        guard nextItem < items.count else { return nil }
        defer { nextItem += 1 }
        return items[nextItem]
    }

    /// Whether every item has been bound.
    var isExhausted: Bool { nextItem >= items.count }

    /// One frame: scroll, reuse the cards that left, bind the ones entering.
    func advance() {
        offset += Self.scrollStep
        content.bounds.origin.y = offset
        for card in cards where card.frame.maxY <= offset {
            card.frame.origin.y = (cards.map(\.frame.minY).max() ?? 0) + Self.pitch
            waiting.insert(ObjectIdentifier(card))
        }
        for card in cards where waiting.contains(ObjectIdentifier(card)) && card.frame.minY < offset + Self.viewport.height {
            guard let item = takeItem() else { break }
            waiting.remove(ObjectIdentifier(card))
            card.bind(item)
            onEnter?(item)
        }
    }

    var viewport: Rect { Rect(origin: content.convertToHost(content.bounds.origin), size: content.bounds.size) }

    /// Cards render at the host's ticks, so the host's idleness is the feed's.
    var isSettled: Bool { true }

    func codeOrigin(ofItem serial: Int) -> Point? {
        cards.first { $0.item?.serial == serial }?.convertToHost(FeedCard.codeOrigin)
    }
}

/// What a composed frame showed of each card, from the code's pixels.
enum CardReading: Equatable {
    case item(Int)
    case blank
    case unreadable
}

/// Follows every item that enters during a run through the composed frames: the frame its code
/// row first shows, the first frame it shows its own item, and whether it was ever shown blank or
/// with another item's contents. Items are followed by where the feed lays them out, not by their
/// cards, so an item whose place is on screen before any card shows it counts as blank.
@MainActor
final class FeedLatencyTracker {
    struct Entry {
        let serial: Int
        var entered: Int?
        var final: Int?
        var blank = false
        var stale = false
        var unreadable = false
        var framesVisibleNotFinal = 0

        /// What the item's card draws: the low 16 bits of its serial.
        var code: Int { serial & 0xFFFF }
    }

    private(set) var entries: [Entry] = []
    private var followed: Set<Int> = []
    /// Composed frames seen so far.
    private(set) var frames = 0

    /// Follows `item` from now on; an item already followed stays as it is.
    func follow(_ item: FeedItem) {
        guard followed.insert(item.serial).inserted else { return }
        entries.append(Entry(serial: item.serial))
    }

    /// Reads one composed frame of `scale` pixels per point, which showed `viewport` (surface
    /// points); `codeOrigin` says where each item's code was when the frame was composed.
    func inspect(_ frame: Bitmap, scale: Double, viewport: Rect, codeOrigin: (_ serial: Int) -> Point?) {
        frames += 1
        for index in entries.indices where entries[index].final == nil {
            var entry = entries[index]
            guard let origin = codeOrigin(entry.serial) else { continue }
            // The centre row of the code.
            let y = origin.y + FeedCard.codeBlock / 2
            guard y >= viewport.minY, y < viewport.maxY else { continue }
            if entry.entered == nil { entry.entered = frames }
            switch Self.read(frame, x: origin.x, y: y, scale: scale) {
            case .item(entry.code): entry.final = frames
            case .item: entry.stale = true
            case .blank: entry.blank = true
            case .unreadable: entry.unreadable = true
            }
            if entry.final == nil { entry.framesVisibleNotFinal += 1 }
            entries[index] = entry
        }
    }

    /// Reads a composed frame of `feed`, composed as it is laid out now.
    func inspect(_ frame: Bitmap, scale: Double, feed: some ScrollingFeed) {
        inspect(frame, scale: scale, viewport: feed.viewport) { feed.codeOrigin(ofItem: $0) }
    }

    /// The card whose code starts at (`x`, `y`) points, its centre row, in a frame of `scale`.
    static func read(_ frame: Bitmap, x: Double, y: Double, scale: Double) -> CardReading {
        var bits: [Bool] = []
        var white = 0
        for index in 0..<FeedCard.codeBits {
            let centre = x + (Double(index) + 0.5) * FeedCard.codeBlock
            let pixel = frame.pixel(x: Int(centre * scale), y: Int(y * scale))
            let (r, g, b) = (pixel >> 16 & 0xFF, pixel >> 8 & 0xFF, pixel & 0xFF)
            if r > 200, g < 60, b < 60 { bits.append(true) }
            else if b > 200, r < 60, g < 60 { bits.append(false) }
            else if r > 240, g > 240, b > 240 { white += 1 }
        }
        if white == FeedCard.codeBits { return .blank }
        return FeedCard.code(of: bits).map { .item($0) } ?? .unreadable
    }

    /// Frames from entering to final, for every item that entered; an item never shown final
    /// counts the frames it was visible (a lower bound), and is counted in `neverFinal`.
    var latencies: [Double] {
        entries.compactMap { entry in
            guard let entered = entry.entered else { return nil }
            return Double(entry.final.map { $0 - entered } ?? entry.framesVisibleNotFinal)
        }
    }

    var entered: [Entry] { entries.filter { $0.entered != nil } }
    var neverFinal: Int { entered.filter { $0.final == nil }.count }
}
