import Locking
import Strata

/// The feed's pictures, as the files a feed's server would send (CONTENT.md, "Pictures"): 24
/// avatars as 96×96 lossy WebP, 8 photos as JPEG in eight shapes, the odd ones progressive, and 4
/// animated WebP stickers. Drawn once with Strata's canvas and encoded with `ImageEncoder`, or
/// read from the files `export(to:)` wrote; decoded like any downloaded image. Any thread.
public final class FeedAssets: Sendable {
    /// Avatars to hand out as corrupt bytes, to show what a broken image looks like.
    public let corruptAvatars: Set<Int>
    /// Where the assets are read from, as files `export(to:)` wrote; nil: drawn and encoded in
    /// memory at first use.
    public let directory: String?
    private let encoded = Locked<[String: [UInt8]]>([:])

    /// The assets drawn in memory, shared: each is drawn and encoded once per process.
    public static let shared = FeedAssets()

    /// The assets, drawn in memory; avatars in `corruptAvatars` come out as bytes no decoder accepts.
    public init(corruptAvatars: Set<Int> = []) {
        self.corruptAvatars = corruptAvatars
        directory = nil
    }

    /// The assets as files in `directory`, which `export(to:)` wrote: what the benchmarks use, so
    /// that Strata reads and decodes the very files GTK's peer does.
    public init(directory: String) {
        corruptAvatars = []
        self.directory = directory
    }

    /// The photos' sizes in pixels (CONTENT.md's table), by index.
    public static let pictureSizes: [(width: Int, height: Int)] = [
        (1600, 900), (1200, 900), (1080, 1080), (900, 1200), (1600, 1000), (1800, 900), (1280, 720), (1080, 1350),
    ]
    /// How many avatars, photos and stickers there are.
    public static let avatarCount = 24, pictureCount = 8, stickerCount = 4
    /// A sticker's side in pixels, its frame count and each frame's duration in seconds.
    public static let stickerSide = 192, stickerFrames = 12, stickerFrameDuration = 0.08

    /// The file name of avatar `index`, as the GTK peer finds it.
    public static func avatarName(_ index: Int) -> String { index < 10 ? "avatar-0\(index).webp" : "avatar-\(index).webp" }
    /// The file name of photo `index`.
    public static func pictureName(_ index: Int) -> String { "picture-\(index).jpg" }
    /// The file name of sticker `index`.
    public static func stickerName(_ index: Int) -> String { "sticker-\(index).webp" }

    /// How high photo `index` is shown in points, 320 points wide: its shape, at most square. A
    /// photo that is not one of the eight (a post written by hand) is shown 16:9, 180 high.
    public static func pictureHeight(_ index: Int) -> Double {
        guard pictureSizes.indices.contains(index) else { return 180 }
        let size = pictureSizes[index]
        return min(320, (320 * Double(size.height) / Double(size.width)).rounded())
    }

    /// Every asset's file name.
    public static var names: [String] {
        (0..<avatarCount).map(avatarName) + (0..<pictureCount).map(pictureName) + (0..<stickerCount).map(stickerName)
    }

    /// The encoded bytes of the named asset, drawn and encoded at first use.
    public func bytes(named name: String) throws -> [UInt8] {
        if let known = encoded.withLock({ $0[name] }) { return known }
        let bytes: [UInt8]
        if corruptAvatars.contains(where: { Self.avatarName($0) == name }) {
            bytes = Array("RIFF\u{10}\0\0\0WEBPbroken".utf8)
        } else {
            bytes = try Self.encode(named: name)
        }
        encoded.withLock { $0[name] = bytes }
        return bytes
    }

    /// The named asset as an image view's source: read from the directory, or encoded in memory,
    /// and decoded on a worker through the shared image cache the first time a view needs it.
    public func source(named name: String) -> ImageSource {
        if let directory { return .file(directory + "/" + name) }
        return .loader(key: cacheKey(name)) { [self] in try bytes(named: name) }
    }

    /// The asset's key in the shared image cache. Assets with broken avatars are another set of
    /// images: they must not share entries.
    private func cacheKey(_ name: String) -> String {
        let set = corruptAvatars.isEmpty ? "" : "#broken\(corruptAvatars.sorted())"
        return "strata-feed\(set)/\(name)"
    }

    /// Writes every asset as a file into `directory`, for the GTK peer and the benchmarks.
    public static func export(to directory: String) throws {
        for name in names { try ImageEncoder.write(encode(named: name), to: directory + "/" + name) }
    }

    /// The named asset, drawn and encoded; only the names `names` lists are assets.
    static func encode(named name: String) throws -> [UInt8] {
        func index(_ count: Int, _ named: (Int) -> String) -> Int? { (0..<count).first { named($0) == name } }
        if let index = index(avatarCount, avatarName) {
            return try ImageEncoder.webp(avatar(index), quality: 0.8)
        }
        if let index = index(pictureCount, pictureName) {
            return try ImageEncoder.jpeg(picture(index), quality: 0.85, progressive: index % 2 == 1)
        }
        if let index = index(stickerCount, stickerName) {
            return try ImageEncoder.animatedWebP(sticker(index), loopCount: 0, quality: 0.85)
        }
        throw RenderError(.corruptImage, "no feed asset is called \(name)")
    }

    /// A head and shoulders on a gradient of the avatar's own hue.
    static func avatar(_ index: Int) throws -> Bitmap {
        let bitmap = try Bitmap(width: 96, height: 96)
        let canvas = Canvas(bitmap: bitmap)
        let hue = Double(index) / 24
        canvas.fill(Rect(x: 0, y: 0, width: 96, height: 96), with: .linearGradient(LinearGradient(
            start: .zero, end: Point(x: 96, y: 96),
            colors: [Color(hue: hue, saturation: 0.7, lightness: 0.62), Color(hue: hue + 0.08, saturation: 0.75, lightness: 0.45)])))
        canvas.fill(Rect(x: 31, y: 18, width: 34, height: 34), color: Color.white.withAlpha(0.92), cornerRadius: 17)
        canvas.fill(Rect(x: 14, y: 58, width: 68, height: 52), color: Color.white.withAlpha(0.92), cornerRadius: 26)
        return bitmap
    }

    /// A landscape at the photo's size: sky, sun and hills in the picture's own colours, with a
    /// film grain, so that it costs what a photo costs to encode and decode (a flat drawing
    /// compresses to almost nothing).
    static func picture(_ index: Int) throws -> Bitmap {
        let (width, height) = pictureSizes[index]
        let bitmap = try Bitmap(width: width, height: height)
        let canvas = Canvas(bitmap: bitmap)
        // Drawn on a 640-wide design, scaled to the photo, whatever its shape.
        let scale = Double(width) / 640, designHeight = Double(height) / scale
        canvas.scale(x: scale, y: scale)
        let hue = 0.55 + Double(index) * 0.09
        canvas.fill(Rect(x: 0, y: 0, width: 640, height: designHeight), with: .linearGradient(LinearGradient(
            start: .zero, end: Point(x: 0, y: designHeight),
            colors: [Color(hue: hue, saturation: 0.6, lightness: 0.75), Color(hue: hue + 0.05, saturation: 0.5, lightness: 0.92)])))
        let horizon = designHeight * 0.6
        canvas.fill(Rect(x: 420 - Double(index) * 30, y: horizon - 160, width: 90, height: 90), color: Color(rgb: 0xFFD60A), cornerRadius: 45)
        for hill in 0..<3 {
            let x = Double(hill) * 240 - 120 + Double(index * 17 % 60)
            canvas.fill(Rect(x: x, y: horizon + Double(hill % 2) * 30, width: 420, height: designHeight),
                        color: Color(hue: 0.3 + Double(hill) * 0.04, saturation: 0.45, lightness: 0.35 + Double(hill) * 0.07),
                        cornerRadius: 180)
        }
        try addGrain(to: bitmap, seed: UInt64(index))
        return bitmap
    }

    /// Film grain: pixels lightened or darkened by up to 12 levels, from a 64-pixel tile of
    /// noise laid over the photo by pixman (per-pixel Swift would take a debug build most of a
    /// second a photo, on the workers that draw the feed).
    static func addGrain(to bitmap: Bitmap, seed: UInt64) throws {
        let tile = try grainTile(seed: seed)
        let canvas = Canvas(bitmap: bitmap)
        for y in stride(from: 0, to: bitmap.height, by: tile.height) {
            for x in stride(from: 0, to: bitmap.width, by: tile.width) {
                canvas.draw(tile, in: Rect(x: Double(x), y: Double(y), width: Double(tile.width), height: Double(tile.height)))
            }
        }
    }

    /// 64×64 pixels of black or white at an opacity of up to 12/255: drawn over a picture, each
    /// lightens or darkens it by that much.
    static func grainTile(seed: UInt64) throws -> Bitmap {
        let tile = try Bitmap(width: 64, height: 64)
        var state = (seed &+ 1) &* 0x9E37_79B9_7F4A_7C15
        for y in 0..<tile.height {
            let row = (tile.pixels + y * tile.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<tile.width {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let alpha = UInt32(state % 13)
                // Premultiplied: white is alpha in every channel, black is alpha alone.
                row[x] = state & 0x100 == 0 ? alpha << 24 : alpha << 24 | alpha << 16 | alpha << 8 | alpha
            }
        }
        return tile
    }

    /// A sticker: a ball of the sticker's hue that bounces, squashing as it lands, over its
    /// shadow, on a transparent canvas; 12 frames of one bounce.
    static func sticker(_ index: Int) throws -> [ImageFrame] {
        let side = Double(stickerSide)
        let hue = 0.02 + Double(index) * 0.25
        return try (0..<stickerFrames).map { frame in
            let bitmap = try Bitmap(width: stickerSide, height: stickerSide)
            let canvas = Canvas(bitmap: bitmap)
            // Height above the floor: a parabola over the bounce, 0 at frames 0 and 12.
            let t = Double(frame) / Double(stickerFrames)
            let lift = 4 * t * (1 - t)
            let squash = frame == 0 ? 0.2 : 0
            let ballWidth = side * 0.5 * (1 + squash), ballHeight = side * 0.5 * (1 - squash)
            let floor = side * 0.9
            let shadow = side * (0.5 - 0.2 * lift)
            canvas.fill(Rect(x: (side - shadow) / 2, y: floor - 8, width: shadow, height: 16),
                        color: Color.black.withAlpha(0.25 - 0.12 * lift), cornerRadius: 8)
            let ball = Rect(x: (side - ballWidth) / 2, y: floor - ballHeight - lift * side * 0.35, width: ballWidth, height: ballHeight)
            canvas.fill(ball, with: .linearGradient(LinearGradient(
                start: Point(x: ball.minX, y: ball.minY), end: Point(x: ball.minX, y: ball.maxY),
                colors: [Color(hue: hue, saturation: 0.85, lightness: 0.62), Color(hue: hue, saturation: 0.9, lightness: 0.42)])),
                        cornerRadius: min(ballWidth, ballHeight) / 2)
            // Eyes, looking the way it moves.
            let look = lift > 0 && frame < stickerFrames / 2 ? -4.0 : 4.0
            for eye in [-1.0, 1.0] {
                canvas.fill(Rect(x: side / 2 + eye * ballWidth * 0.18 - 9, y: ball.minY + ballHeight * 0.3, width: 18, height: 22),
                            color: .white, cornerRadius: 9)
                canvas.fill(Rect(x: side / 2 + eye * ballWidth * 0.18 - 5, y: ball.minY + ballHeight * 0.3 + 8 + look / 2, width: 10, height: 10),
                            color: Color(rgb: 0x1C1C1E), cornerRadius: 5)
            }
            return ImageFrame(index: frame, image: bitmap, duration: stickerFrameDuration)
        }
    }
}
