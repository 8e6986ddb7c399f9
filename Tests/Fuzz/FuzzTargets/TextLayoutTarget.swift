import StrataRender

extension FuzzTarget {
    /// Text layout from arbitrary bytes, read as UTF-8 with replacement, with hostile widths, sizes,
    /// line limits, spacing and scales; then drawn. The layout keeps its promises: no more lines
    /// than asked for, and finite, non-negative measurements.
    public static let textLayout = FuzzTarget(name: "text-layout") { bytes in
        var input = FuzzInput(bytes)
        let maximumLines = input.int()
        let options = TextLayoutOptions(
            width: input.double(), maximumLines: maximumLines, lineSpacing: input.double(ordinary: 0...4),
            alignment: input.pick(TextAlignment.allCases), lineBreakMode: input.pick(LineBreakMode.allCases),
            baseDirection: input.pick([nil, .leftToRight, .rightToLeft]))
        let scale = input.double(ordinary: 0...4)
        let font = Font(family: input.pick([Font.defaultFamily, "WenQuanYi Micro Hei", "monospace", "\u{0}\u{1b}[2J"]),
                        size: input.double(ordinary: 1...64), weight: .init(input.int()), isItalic: input.bool())
        var text = AttributedText(utf8: input.bytes(Int(input.byte()) * 4), style: TextStyle(font: font))
        text.append(String(decoding: input.rest(), as: UTF8.self), style: TextStyle(font: font.withSize(input.double(ordinary: 1...32))))
        let layout = input.bool() ? TextLayout(text, options: options, scale: scale) : TextLayout.cached(text, options: options, scale: scale)
        if options.maximumLines > 0, layout.lines.count > options.maximumLines {
            violated("\(layout.lines.count) lines for a limit of \(options.maximumLines)")
        }
        let size = layout.size
        guard size.width.isFinite, size.height.isFinite, size.width >= 0, size.height >= 0 else {
            violated("measured \(size)")
        }
        guard let bitmap = try? Bitmap(width: 64, height: 32) else { return }
        Canvas(bitmap: bitmap).draw(layout, at: Point(x: 0, y: 0))
    }
}
