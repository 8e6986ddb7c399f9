/// Finds links in plain text, for views that make them tappable (`Label.linkDetector`). Any
/// thread: a feed detects links where it builds its text, on a worker.
public protocol TextLinkDetector: Sendable {
    /// The links in `string`, in order and not overlapping.
    func links(in string: String) -> [(range: Range<String.Index>, target: TextLink.Target)]
}

extension TextLinkDetector {
    /// `text` with every link found in its string marked (`TextStyle.link`) and coloured
    /// `color` (nil keeps each run's colour). Links the text already has are kept, and nothing
    /// found inside them is marked again.
    public func marking(_ text: AttributedText, color: Color? = nil) -> AttributedText {
        let string = text.string
        var result = text
        // Pieces already linked stay as they are.
        var linked: [Range<Int>] = []
        var offset = 0
        for piece in text.pieces {
            switch piece {
            case let .text(part, style):
                let count = part.utf16.count
                if style.link != nil { linked.append(offset..<offset + count) }
                offset += count
            case .attachment:
                offset += 1
            }
        }
        for (range, target) in links(in: string) {
            let low = AttributedText.offset(range.lowerBound, in: string), high = AttributedText.offset(range.upperBound, in: string)
            guard !linked.contains(where: { $0.overlaps(low..<high) }) else { continue }
            result.updateStyle(in: range) { style in
                style.link = TextLink(target)
                if let color { style.color = color }
            }
        }
        return result
    }
}

/// Finds what a social feed links: web addresses (`https://…`, `http://…`, `www.…`),
/// @mentions and #hashtags.
///
/// - An address runs to the next whitespace; closing punctuation that ends a sentence (".,;:!?")
///   and unbalanced closing brackets or quotes at its end are left out.
/// - A mention or hashtag starts at the beginning of the text or after a character that is not
///   a letter, digit or `_` (so an e-mail address is not a mention), and takes the letters,
///   digits, `_` and marks after its sign; a hashtag of digits only ("#1") is not one.
public struct StandardLinkDetector: TextLinkDetector {
    /// Whether web addresses are found.
    public var findsURLs: Bool
    /// Whether @mentions are found.
    public var findsMentions: Bool
    /// Whether #hashtags are found.
    public var findsHashtags: Bool

    /// A detector of every kind, unless told otherwise.
    public init(urls: Bool = true, mentions: Bool = true, hashtags: Bool = true) {
        findsURLs = urls
        findsMentions = mentions
        findsHashtags = hashtags
    }

    /// The addresses, mentions and hashtags in `string`, in order.
    public func links(in string: String) -> [(range: Range<String.Index>, target: TextLink.Target)] {
        var found: [(range: Range<String.Index>, target: TextLink.Target)] = []
        var index = string.startIndex
        var previous: Character?
        while index < string.endIndex {
            let character = string[index]
            let atWordStart = previous.map { !Self.isWordCharacter($0) } ?? true
            if findsURLs, atWordStart, let end = urlEnd(in: string, from: index) {
                found.append((index..<end, .url(String(string[index..<end]))))
                previous = string[string.index(before: end)]
                index = end
                continue
            }
            if atWordStart, (character == "@" && findsMentions) || (character == "#" && findsHashtags) {
                let nameStart = string.index(after: index)
                var end = nameStart
                while end < string.endIndex, Self.isWordCharacter(string[end]) { end = string.index(after: end) }
                let name = String(string[nameStart..<end])
                if !name.isEmpty, character == "@" || !name.allSatisfy(\.isNumber) {
                    found.append((index..<end, character == "@" ? .mention(name) : .hashtag(name)))
                    previous = string[string.index(before: end)]
                    index = end
                    continue
                }
            }
            previous = character
            index = string.index(after: index)
        }
        return found
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
            || character.unicodeScalars.first.map { $0.properties.generalCategory == .nonspacingMark } == true
    }

    /// Where an address starting at `start` ends, or nil when none starts there.
    private func urlEnd(in string: String, from start: String.Index) -> String.Index? {
        // Only the first characters are compared, so a long text is not lowercased at every word.
        let head = string[start...].prefix(8).lowercased()
        let schemes = ["https://", "http://", "www."]
        guard let scheme = schemes.first(where: { head.hasPrefix($0) }) else { return nil }
        var end = start
        while end < string.endIndex, !string[end].isWhitespace { end = string.index(after: end) }
        // Trailing punctuation, and closers with no opener inside the address.
        while end > start {
            let last = string[string.index(before: end)]
            let body = string[start..<string.index(before: end)]
            let unbalanced = [(")", "("), ("]", "["), ("}", "{")].contains { closer, opener in
                last == Character(closer) && body.filter { $0 == Character(closer) }.count >= body.filter { $0 == Character(opener) }.count
            }
            if ".,;:!?'\"”’»".contains(last) || unbalanced { end = string.index(before: end) } else { break }
        }
        return string.distance(from: start, to: end) > scheme.count ? end : nil
    }
}
