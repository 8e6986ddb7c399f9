import StrataRender

extension FuzzTarget {
    /// Attributed text in every script the engine handles, with styles over random (and
    /// hostile) ranges, laid out at hostile widths, line limits, modes and directions, then
    /// queried. The queries keep their promises: the caret of the position at a point lies on
    /// that point's line; selecting everything covers exactly every line's width; moving by
    /// character forward reaches the end in strictly increasing steps, and back retraces them.
    public static let textQueries = FuzzTarget(name: "text-queries") { bytes in
        var input = FuzzInput(bytes)
        // Bytes become text: ASCII as it is, the rest picks pieces of every script and the
        // bidi controls, emoji sequences and separators that stress layout.
        let palette = ["مرحبا", "ש", "עולם", "中文", "。", "ภาษา", "ไทย", "👍🏽", "👨‍👩‍👧", "🇯🇵", "#️⃣", "\u{200D}",
                       "\u{202B}", "\u{202E}", "\u{202C}", "\u{2066}", "\u{2067}", "\u{2069}", "\u{200F}", "e\u{301}",
                       "\t", "\n", "\r\n", "\u{2028}", "  ", "ﬁ", "\u{FFFC}", "123", "(", ")", "https://x.y", "@a", "#b"]
        var string = ""
        for byte in input.bytes(Int(input.byte()) + 1) {
            if byte < 0x80, byte >= 0x20 { string.unicodeScalars.append(Unicode.Scalar(byte)) } else { string += palette[Int(byte) % palette.count] }
        }
        var text = AttributedText(string, style: TextStyle(font: Font(size: input.double(ordinary: 1...40))))
        for _ in 0..<Int(input.byte() % 8) {
            // Ranges from this string, from a longer one, or reversed into bounds.
            let other = String(repeating: "x", count: Int(input.byte()))
            let base = input.bool() ? string : other
            let a = base.utf16.index(base.startIndex, offsetBy: min(Int(input.byte()), base.utf16.count))
            let b = base.utf16.index(base.startIndex, offsetBy: min(Int(input.byte()), base.utf16.count))
            let range = min(a, b)..<max(a, b)
            let choice = input.byte()
            let value = input.double()
            text.updateStyle(in: range) { style in
                switch choice % 9 {
                case 0: style.font = style.font.withSize(value)
                case 1: style.letterSpacing = value - 500
                case 2: style.baselineOffset = value - 500
                case 3: style.underline = TextDecoration(.double)
                case 4: style.backgroundColor = .red
                case 5: style.link = TextLink(.action("x"))
                case 6: style.shadow = TextShadow(offset: Point(x: value, y: -value), blurRadius: value)
                case 7: style.features = [FontFeature.tabularFigures] + FontFeature.ligatures(false)
                default:
                    style.paragraph = ParagraphStyle(alignment: .justified, lineHeightMultiple: value, minimumLineHeight: value,
                                                     maximumLineHeight: value / 2, paragraphSpacing: value, headIndent: value,
                                                     firstLineHeadIndent: -value, tailIndent: value, lineBreakMode: .characterWrap)
                }
            }
        }
        let options = TextLayoutOptions(
            width: input.double(ordinary: 0...600), maximumLines: Int(input.byte() % 6), lineSpacing: input.double(ordinary: 0...3),
            alignment: input.pick(TextAlignment.allCases), lineBreakMode: input.pick(LineBreakMode.allCases),
            baseDirection: input.pick([nil, .leftToRight, .rightToLeft]), tabInterval: input.bool() ? input.double() : nil)
        let layout = TextLayout(text, options: options, scale: input.pick([1, 2, 1.5]))
        if options.maximumLines > 0, layout.lines.count > options.maximumLines {
            violated("\(layout.lines.count) lines for a limit of \(options.maximumLines)")
        }
        guard layout.size.width.isFinite, layout.size.height.isFinite else { violated("measured \(layout.size)") }

        // The caret of the position at a point is on that point's line.
        for _ in 0..<8 {
            let point = Point(x: input.double(ordinary: -50...650), y: input.double(ordinary: 0...max(layout.size.height, 1)))
            let caret = layout.caretRects(for: layout.position(at: point)).primary
            guard let line = layout.lines.first(where: { point.y >= $0.frame.minY && point.y < $0.frame.maxY }) else { continue }
            if caret.minY != line.frame.minY || caret.maxY != line.frame.maxY {
                violated("caret \(caret) off the line \(line.frame) of point \(point)")
            }
        }
        // Selecting everything covers every line's width.
        let all = layout.string.startIndex..<layout.string.endIndex
        let covered = layout.selectionRects(for: all).reduce(0) { $0 + $1.width }
        let widths = layout.lines.reduce(0) { $0 + $1.frame.width }
        if abs(covered - widths) > 0.01 * max(1, Double(layout.lines.count)) {
            violated("selecting everything covers \(covered), the lines are \(widths) wide")
        }
        // Character by character, forward then back.
        var forward = [layout.string.startIndex]
        while let last = forward.last, last < layout.string.endIndex {
            let next = layout.index(afterCharacter: last)
            guard next > last else { violated("moving forward from \(last) stays at \(next)") }
            forward.append(next)
        }
        var back = [layout.string.endIndex]
        while let last = back.last, last > layout.string.startIndex {
            let previous = layout.index(beforeCharacter: last)
            guard previous < last else { violated("moving back from \(last) stays at \(previous)") }
            back.append(previous)
        }
        if Array(back.reversed()) != forward { violated("moving back does not retrace moving forward") }

        guard let bitmap = try? Bitmap(width: 64, height: 32) else { return }
        Canvas(bitmap: bitmap).draw(layout, at: Point(x: 0, y: 0))
    }
}
