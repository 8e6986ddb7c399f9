import StrataCore

extension MnemonicTitle {
    /// The title in `font` and `color`, its mnemonic underlined when `underlined`: what a menu
    /// row and a menu bar's title show, with Alt held or after keyboard activation.
    func attributed(font: Font, color: Color, underlined: Bool) -> AttributedText {
        let style = TextStyle(font: font, color: color)
        guard underlined, let offset = mnemonicOffset else { return AttributedText(text, style: style) }
        let start = text.index(text.startIndex, offsetBy: offset)
        let end = text.index(after: start)
        var underline = style
        underline.underline = TextDecoration(.single)
        var attributed = AttributedText(String(text[..<start]), style: style)
        attributed.append(String(text[start..<end]), style: underline)
        attributed.append(String(text[end...]), style: style)
        return attributed
    }
}

/// A small picture drawn at its layer's size: a menu row's icon. A picture larger than that is
/// halved (each step an exact 2×2 average) until one bilinear step is left, so a big icon shrinks
/// smoothly instead of dropping most of its pixels as one bilinear step would. Drawn on the main
/// thread, as the row's labels are, so a menu shows whole in its first frame. Main actor only.
@MainActor
final class IconLayer: AsyncLayer, AsyncLayerDelegate {
    var image: Bitmap? {
        didSet { if image !== oldValue { setNeedsDisplayAtNextTick() } }
    }

    init(image: Bitmap?) {
        self.image = image
        super.init()
        displaysAsynchronously = false
        delegate = self
    }

    func displayTask(for layer: AsyncLayer) -> DisplayTask {
        guard let image else { return DisplayTask(display: nil) }
        return DisplayTask(display: { canvas, size, _ in
            let target = (width: size.width * canvas.transform.a, height: size.height * canvas.transform.d)
            canvas.draw(Self.halved(image, toward: target), in: Rect(origin: .zero, size: size))
        })
    }

    /// `image` halved while it stays at least twice `target`'s pixels in both directions; the
    /// image itself when it is not that large, or a halving finds no memory (the plain bilinear
    /// draw then still shows it, only rougher).
    nonisolated static func halved(_ image: Bitmap, toward target: (width: Double, height: Double)) -> Bitmap {
        var current = image
        while Double(current.width) >= 2 * target.width, Double(current.height) >= 2 * target.height,
              current.width >= 2, current.height >= 2 {
            let width = current.width / 2, height = current.height / 2
            do {
                let half = try Bitmap(width: width, height: height)
                Canvas(bitmap: half).draw(current, in: Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
                current = half
            } catch {
                return current
            }
        }
        return current
    }
}
