import Locking
import Strata

/// The feed's pictures as PNG files' bytes: 24 avatars (96×96) and 8 landscape photos
/// (640×360), drawn once with Strata's canvas and encoded, then decoded like any downloaded
/// image. Any thread.
public final class FeedAssets: Sendable {
    /// Avatars to hand out as corrupt bytes, to show what a broken image looks like.
    public let corruptAvatars: Set<Int>
    private let encoded = Locked<[String: [UInt8]]>([:])

    /// The assets; avatars in `corruptAvatars` come out as bytes no decoder accepts.
    public init(corruptAvatars: Set<Int> = []) {
        self.corruptAvatars = corruptAvatars
    }

    /// The file name of avatar `index`, as the GTK peer finds it.
    public static func avatarName(_ index: Int) -> String { index < 10 ? "avatar-0\(index).png" : "avatar-\(index).png" }
    /// The file name of picture `index`.
    public static func pictureName(_ index: Int) -> String { "picture-\(index).png" }

    /// The PNG bytes of the named asset, drawn and encoded at first use.
    public func bytes(named name: String) throws -> [UInt8] {
        if let known = encoded.withLock({ $0[name] }) { return known }
        let bytes: [UInt8]
        if name.hasPrefix("avatar-"), let index = Int(name.dropFirst(7).prefix(2)) {
            bytes = corruptAvatars.contains(index) ? Array("\u{89}PNG broken".utf8) : try PNG.encode(Self.avatar(index))
        } else if name.hasPrefix("picture-"), let index = Int(name.dropFirst(8).prefix(1)) {
            bytes = try PNG.encode(Self.picture(index))
        } else {
            throw RenderError(.corruptImage, "no feed asset is called \(name)")
        }
        encoded.withLock { $0[name] = bytes }
        return bytes
    }

    /// The named asset as an image view's source: encoded and decoded on a worker, through the
    /// shared image cache, the first time a view needs it.
    public func source(named name: String) -> ImageSource {
        .loader(key: cacheKey(name)) { [self] in try bytes(named: name) }
    }

    /// The asset's key in the shared image cache. Assets with broken avatars are another set of
    /// images: they must not share entries.
    private func cacheKey(_ name: String) -> String {
        let set = corruptAvatars.isEmpty ? "" : "#broken\(corruptAvatars.sorted())"
        return "strata-feed\(set)/\(name)"
    }

    /// Writes every asset as a PNG file into `directory`, for the GTK peer.
    public static func export(to directory: String) throws {
        for index in 0..<24 { try PNG.write(avatar(index), to: directory + "/" + avatarName(index)) }
        for index in 0..<8 { try PNG.write(picture(index), to: directory + "/" + pictureName(index)) }
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

    /// A landscape: sky, sun and hills in the picture's own colours.
    static func picture(_ index: Int) throws -> Bitmap {
        let bitmap = try Bitmap(width: 640, height: 360)
        let canvas = Canvas(bitmap: bitmap)
        let hue = 0.55 + Double(index) * 0.09
        canvas.fill(Rect(x: 0, y: 0, width: 640, height: 360), with: .linearGradient(LinearGradient(
            start: .zero, end: Point(x: 0, y: 360),
            colors: [Color(hue: hue, saturation: 0.6, lightness: 0.75), Color(hue: hue + 0.05, saturation: 0.5, lightness: 0.92)])))
        canvas.fill(Rect(x: 420 - Double(index) * 30, y: 60, width: 90, height: 90), color: Color(rgb: 0xFFD60A), cornerRadius: 45)
        for hill in 0..<3 {
            let x = Double(hill) * 240 - 120 + Double(index * 17 % 60)
            canvas.fill(Rect(x: x, y: 220 + Double(hill % 2) * 30, width: 420, height: 300),
                        color: Color(hue: 0.3 + Double(hill) * 0.04, saturation: 0.45, lightness: 0.35 + Double(hill) * 0.07),
                        cornerRadius: 180)
        }
        return bitmap
    }
}
