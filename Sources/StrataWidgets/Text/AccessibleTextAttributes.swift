import StrataCore

/// Text styles as AT-SPI's text attributes, with GTK's names and formats, so a screen reader
/// says "bold" or "underline" for Strata's text as it does for GTK's: `family-name`, `size` in
/// points, `weight` as a number (400, 700), `style` (`normal`, `italic`), `fg-color` and
/// `bg-color` as `r,g,b` of 0…65535 (Pango's colour range, which GTK writes), `underline`
/// (`none`, `single`, `double`) and `strikethrough` (`true`, `false`).
enum AccessibleTextAttributes {
    /// The attributes `style` draws with.
    static func attributes(of style: TextStyle) -> [String: String] {
        let font = style.font
        var result = [
            "family-name": font.family,
            "size": points(font.size),
            "weight": String(font.weight.value),
            "style": font.isItalic ? "italic" : "normal",
            "fg-color": rgb(style.color),
            "underline": underline(style.underline),
            "strikethrough": style.strikethrough == nil ? "false" : "true",
        ]
        if let background = style.backgroundColor { result["bg-color"] = rgb(background) }
        return result
    }

    /// The run of `text` around scalar `offset` whose pieces draw with the same attributes;
    /// `fallback`'s attributes over the whole (empty) text when it has no pieces. An offset
    /// past the end is the last run's, as the caret there types in its style.
    static func run(at offset: Int, in text: AttributedText, fallback: TextStyle) -> AccessibilityTextRun {
        var runs: [AccessibilityTextRun] = []
        var start = 0
        for piece in text.pieces {
            let (count, style): (Int, TextStyle) = switch piece {
            case let .text(string, style): (string.unicodeScalars.count, style)
            case let .attachment(_, style): (1, style)
            }
            let attributes = attributes(of: style)
            if let last = runs.last, last.attributes == attributes {
                runs[runs.count - 1].range = last.range.lowerBound..<start + count
            } else {
                runs.append(AccessibilityTextRun(range: start..<start + count, attributes: attributes))
            }
            start += count
            // Past the offset's run: the rest cannot change it.
            if start > offset, runs.count >= 2, runs[runs.count - 2].range.contains(offset) { break }
        }
        return runs.first { $0.range.contains(offset) } ?? runs.last
            ?? AccessibilityTextRun(range: 0..<0, attributes: attributes(of: fallback))
    }

    /// A size in points as GTK writes it: whole when it is whole.
    private static func points(_ size: Double) -> String {
        guard size.isFinite else { return "0" }
        return size == size.rounded() ? String(Int(size)) : String(size)
    }

    /// A colour's red, green and blue, 0…65535 each.
    private static func rgb(_ color: Color) -> String {
        func channel(_ value: Double) -> Int { Int((value.isNaN ? 0 : min(max(value, 0), 1)) * 65535 + 0.5) }
        return "\(channel(color.red)),\(channel(color.green)),\(channel(color.blue))"
    }

    private static func underline(_ decoration: TextDecoration?) -> String {
        switch decoration?.pattern {
        case nil: "none"
        case .single?, .thick?: "single"
        case .double?: "double"
        }
    }
}

extension AccessibilityText {
    /// Attributes read from `text` (as shown), with `style` as the defaults: neither is read
    /// until an assistive technology asks.
    mutating func describeAttributes(of text: @escaping @MainActor @Sendable () -> (AttributedText, TextStyle)?) {
        attributeRun = { offset in
            guard let (shown, style) = text() else { return AccessibilityTextRun(range: 0..<0, attributes: [:]) }
            return AccessibleTextAttributes.run(at: offset, in: shown, fallback: style)
        }
        defaultAttributes = { text().map { AccessibleTextAttributes.attributes(of: $0.1) } ?? [:] }
    }
}
