import Foundation
import StrataPlatform
import StrataRender

extension FuzzTarget {
    /// Font loading from bytes: the first byte picks the face index (0 below 0xF0, else -2…12 or,
    /// at 0xFF, `Int.max`), the rest is the font file.
    /// Bytes FreeType accepts are then pinned as a library's only font, and mixed text is shaped,
    /// laid out and drawn with it at a few sizes, a huge one (drawn from outlines) included.
    public static let font = FuzzTarget(name: "font") { bytes in
        var input = FuzzInput(bytes)
        let choice = input.byte()
        let index = choice < 0xF0 ? 0 : choice == 0xFF ? .max : Int(choice & 0x0F) - 2
        let file = input.rest()
        let library = FontLibrary(glyphCacheBytes: 1 << 20)
        guard (try? library.face(bytes: file, index: index)) != nil else { return }
        guard let path = FontScratch.shared.write(file),
              let pinned = try? FontLibrary(files: [path], glyphCacheBytes: 1 << 20) else { return }
        guard let bitmap = try? Bitmap(width: 96, height: 48) else { return }
        let canvas = Canvas(bitmap: bitmap)
        for size in [9.0, 24, 400] {
            let text = AttributedText("Ag 字 ﬁ \u{301}x", style: TextStyle(font: Font(size: size)))
            let layout = TextLayout(text, options: TextLayoutOptions(width: 90, maximumLines: 2), library: pinned)
            canvas.draw(layout, at: Point(x: 0, y: 0))
        }
    }
}

/// One private file the font target rewrites for each input, since a pinned library reads its
/// fonts by path: in a directory only this process can use, removed at exit by the OS's tmp
/// cleaning at the latest (one small file).
final class FontScratch: Sendable {
    static let shared = FontScratch()
    private let path: String?

    private init() {
        path = (try? PrivateDirectory.make(prefix: "strata-fuzz-font")).map { $0 + "/font" }
    }

    func write(_ bytes: [UInt8]) -> String? {
        guard let path, FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return nil }
        return path
    }
}
