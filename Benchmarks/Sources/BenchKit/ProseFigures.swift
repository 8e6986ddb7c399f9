import Foundation

/// Figures quoted in prose (the README, BENCHMARKS.md), each tied to the results it quotes by an
/// HTML comment right after it, which the rendered page does not show:
///
///     misses 15<!-- fig M9 gtk_late_frames_2000 --> of 600
///     0.21×<!-- fig M9 strata_process_cpu_per_frame_2000 / M9 gtk_process_cpu_per_frame_2000 -->
///     1.7–2.2×<!-- fig 2026-11-27-M1-M12.json range M1 warm_vs_cairo_1w, M1 warm_vs_cairo_2w -->
///
/// A figure reads from the newest full run unless a results file is named first (or, in a range
/// or ratio, before one reference). The number before the comment must be the figure rounded to
/// the digits written; a range must be the smallest and largest of the figures named, and one
/// number may stand for a range whose ends both round to it. So a number in prose cannot drift
/// from the JSON.
///
/// A number that no committed file holds (a run before a fix, a profile, a file that is gone)
/// says so instead, with its reason: `107 ms<!-- past: before the fix -->`. In the parts of a
/// document that report runs (`unannotated(in:scopes:)`), every number with a result unit must
/// carry one comment or the other.
public enum ProseFigures {
    public struct Annotation: Sendable, Equatable {
        /// The results file named, or nil for the newest full run.
        public var source: String?
        public var spec: String
        /// The number or range written before the comment.
        public var written: String
        /// Where it is, for the message: the line number.
        public var line: Int
    }

    static let marker = "<!-- fig "
    /// A number from no committed results file: a run before a fix, a profile, a file that is gone.
    /// The reason is required, so a reader learns where the number comes from:
    /// `107 ms<!-- past: before the fix -->`. Alone on the first line of a paragraph, it marks
    /// every number of that paragraph.
    static let pastMarker = "<!-- past"

    /// A number written as not from the committed results, with the reason its comment gives.
    public struct PastMark: Sendable, Equatable {
        /// The number or range written before the comment; empty when the comment is alone on
        /// its line and marks its paragraph.
        public var written: String
        public var reason: String
        /// Whether the comment stands alone on its line, marking the paragraph it opens.
        public var marksParagraph: Bool
        public var line: Int
    }

    /// Every HTML comment of `document` that begins with `prefix`, outside backticks, with its
    /// text, the number written right before it, its line and whether it is alone on its line.
    static func comments(in document: String, prefix: String) -> [(body: Substring, written: String, line: Int, alone: Bool)] {
        var found: [(body: Substring, written: String, line: Int, alone: Bool)] = []
        for (index, line) in document.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = Substring(line)
            var before = ""
            while let start = rest.range(of: prefix), let end = rest[start.upperBound...].range(of: "-->") {
                before += rest[..<start.lowerBound]
                // A comment shown as code (between backticks) is an example, not an annotation.
                if before.filter({ $0 == "`" }).count % 2 == 1 {
                    before += rest[start.lowerBound..<end.upperBound]
                    rest = rest[end.upperBound...]
                    continue
                }
                let alone = before.allSatisfy { $0 == " " } && rest[end.upperBound...].allSatisfy { $0 == " " }
                found.append((rest[start.upperBound..<end.lowerBound], trailingNumber(before), index + 1, alone))
                before += rest[start.lowerBound..<end.upperBound]
                rest = rest[end.upperBound...]
            }
        }
        return found
    }

    /// Every annotation in `document`, with the number written before it; an annotation with
    /// no number before it comes back with `written` empty, which `check` reports.
    public static func annotations(in document: String) -> [Annotation] {
        comments(in: document, prefix: marker).map { comment in
            let body = comment.body.trimmed(" ")
            let words = body.split(separator: " ", maxSplits: 1).map(String.init)
            let named = words.first?.hasSuffix(".json") == true
            let source = named ? words.first : nil
            let spec = named ? (words.count > 1 ? words[1] : "") : body
            return Annotation(source: source, spec: spec, written: comment.written, line: comment.line)
        }
    }

    /// Every `past` comment in `document`; a reason that is empty, or a comment not written
    /// `past: reason`, comes back with `reason` empty, which `check` reports.
    public static func pastMarks(in document: String) -> [PastMark] {
        comments(in: document, prefix: pastMarker).map { comment in
            let reason = comment.body.hasPrefix(":") ? comment.body.dropFirst().trimmed(" ") : ""
            return PastMark(written: comment.alone ? "" : comment.written, reason: reason, marksParagraph: comment.alone, line: comment.line)
        }
    }

    /// The number or range at the end of `text`, its unit dropped: "1.7–2.2" of "draw 1.7–2.2×",
    /// "5218" of "against 5 218".
    static func trailingNumber(_ text: String) -> String {
        var scalars = Substring(text)
        // The unit and spaces after the number.
        while let last = scalars.last, !last.isASCIIDigit {
            guard last == " " || last == "×" || last == "%" || last.isLetter || last == "/" else { break }
            scalars.removeLast()
        }
        var number = ""
        var sawRangeDash = false
        while let last = scalars.last {
            if last.isASCIIDigit || last == "." {
                number.insert(last, at: number.startIndex)
            } else if (last == "–" || last == "-"), !sawRangeDash, !number.isEmpty,
                      let previous = scalars.dropLast().last, previous.isASCIIDigit {
                sawRangeDash = true
                number.insert("–", at: number.startIndex)
            } else if last == " ", number.prefix(while: \.isASCIIDigit).count == 3,
                      let previous = scalars.dropLast().last, previous.isASCIIDigit {
                // A space between groups of thousands, as the documents write them: "5 218".
            } else {
                break
            }
            scalars.removeLast()
        }
        return number
    }

    /// The problems with every annotation of `document`; empty when all agree. `report` gives the
    /// results file named (nil for the newest full run), or throws when there is none.
    public static func check(_ document: String, name: String, report: (String?) throws -> Report) -> [String] {
        var problems: [String] = []
        for mark in pastMarks(in: document) {
            let place = "\(name):\(mark.line)"
            if mark.reason.isEmpty {
                problems.append("\(place): a past comment needs a reason: <!-- past: why -->")
            } else if mark.written.isEmpty, !mark.marksParagraph {
                problems.append("\(place): no number before the past comment")
            }
        }
        for annotation in annotations(in: document) {
            let place = "\(name):\(annotation.line)"
            guard !annotation.written.isEmpty else {
                problems.append("\(place): no number before the figure comment")
                continue
            }
            let results: Report
            do {
                results = try report(annotation.source)
            } catch {
                problems.append("\(place): \(annotation.source ?? "the newest full run") cannot be read: \(error)")
                continue
            }
            // A reference may name its own file ("2026-11-24.json M1 warm_vs_cairo_1w"), so a
            // range can span runs.
            // A plain number is a constant, for a figure turned into another unit or per item:
            // "0.7 µs a layer" is `M15 deep_hit_test_100000 / 10000` (ms for 100 tests of
            // 100 000 layers).
            func value(_ reference: Substring) -> Double? {
                if let constant = Double(reference) { return constant }
                var parts = reference.split(separator: " ")
                var figures = results.figures
                if parts.count == 3, parts[0].hasSuffix(".json") {
                    guard let other = try? report(String(parts[0])) else { return nil }
                    figures = other.figures
                    parts.removeFirst()
                }
                guard parts.count == 2 else { return nil }
                return figures.first { $0.metricID == parts[0] && $0.name == parts[1] }?.value
            }
            let spec = annotation.spec
            let expected: [Double]
            if spec.hasPrefix("range ") {
                let values = spec.dropFirst(6).split(separator: ",").map { value($0.trimmed(" ")[...]) }
                guard !values.isEmpty, values.allSatisfy({ $0?.isFinite == true }) else {
                    problems.append("\(place): a figure of \"\(spec)\" is not in the results")
                    continue
                }
                let finite = values.compactMap { $0 }
                expected = [finite.min()!, finite.max()!]
            } else if spec.contains(" / ") {
                let sides = spec.components(separatedBy: " / ").map { value($0.trimmed(" ")[...]) }
                guard sides.count == 2, let top = sides[0], let bottom = sides[1], top.isFinite, bottom.isFinite, bottom != 0 else {
                    problems.append("\(place): a figure of \"\(spec)\" is not in the results")
                    continue
                }
                expected = [top / bottom]
            } else {
                guard let single = value(spec[...]), single.isFinite else {
                    problems.append("\(place): \"\(spec)\" is not in the results")
                    continue
                }
                expected = [single]
            }
            var written = annotation.written.split(separator: "–").map(String.init)
            // One number for a range says every figure rounds to it ("10 ms" for 9.7 and 9.4).
            if written.count == 1, expected.count == 2 { written = [written[0], written[0]] }
            guard written.count == expected.count else {
                problems.append("\(place): \"\(annotation.written)\" is \(written.count == 1 ? "one number" : "a range"), the figure \(expected.count == 1 ? "one value" : "a range")")
                continue
            }
            for (text, value) in zip(written, expected) where !agrees(text, value) {
                problems.append("\(place): the prose says \(text), the results \(Report.format(value)) (\(spec))")
            }
        }
        return problems
    }

    /// Whether `text` is `value` rounded to the decimals written.
    static func agrees(_ text: String, _ value: Double) -> Bool {
        guard let number = Double(text) else { return false }
        let decimals = text.split(separator: ".", maxSplits: 1).dropFirst().first?.count ?? 0
        var step = 1.0
        for _ in 0..<decimals { step /= 10 }
        return abs(number - value) <= step / 2 + step * 1e-9
    }

    /// The units that make a number a result: a number with one of these in a checked part of a
    /// document must carry a `fig` or a `past` comment.
    public static let resultUnits = ["×", " ms", " µs", " MiB", " %"]

    /// Words right before a number that make it a goal or a limit, not a result: "(goal 2×)",
    /// "p99 ≤ 0.1 ms", "at most 0.2×", "a budget of 8 MiB".
    static let thresholdWords = ["goal ", "goal: ", "goal of ", "≤ ", "at most ", "budget of "]

    /// A part of a document whose numbers with a result unit must each carry a comment.
    public enum Scope: Sendable, Equatable {
        /// A section: from its heading (the whole line, "## Performance") to the next heading of
        /// the same or a higher level, its subsections included.
        case section(String)
        /// Every passage that reports a run: from a paragraph beginning with this text to the
        /// next heading or the next paragraph that opens in bold (the next metric's description).
        case passages(startingWith: String)
    }

    /// The numbers with a result unit in `section` of `document` (from its heading to the next
    /// heading of the same or a higher level) that carry no comment: the README's performance
    /// summary uses it.
    public static func unannotated(in document: String, section heading: String) -> [String] {
        unannotated(in: document, scopes: [.section(heading)])
    }

    /// The numbers with a result unit in the parts of `document` that `scopes` name which carry
    /// neither a figure comment nor a `past` one: the gate that keeps every reported number tied
    /// to the results or marked as from no committed file. Code (fenced or in backticks), comments,
    /// the generated results block and goals ("goal 2×", "≤ 0.1 ms") are not results and are
    /// skipped; so is a paragraph whose first line is a `past` comment alone, which marks every
    /// number in it (a profile's table, say). A scope that matches nothing is reported, so a
    /// renamed heading cannot switch the check off.
    public static func unannotated(in document: String, scopes: [Scope]) -> [String] {
        let paragraphs = self.paragraphs(of: masked(document))
        var found: [String] = []
        var checked = Array(repeating: false, count: paragraphs.count)
        for scope in scopes {
            var matched = false
            switch scope {
            case .section(let heading):
                let level = heading.prefix { $0 == "#" }.count
                var index = 0
                while index < paragraphs.count {
                    guard paragraphs[index] == heading else { index += 1; continue }
                    matched = true
                    index += 1
                    while index < paragraphs.count, !(headingLevel(paragraphs[index]).map { $0 <= level } ?? false) {
                        checked[index] = true
                        index += 1
                    }
                }
            case .passages(let prefix):
                var index = 0
                while index < paragraphs.count {
                    guard paragraphs[index].hasPrefix(prefix) else { index += 1; continue }
                    matched = true
                    checked[index] = true
                    index += 1
                    while index < paragraphs.count, headingLevel(paragraphs[index]) == nil, !paragraphs[index].hasPrefix("**") {
                        checked[index] = true
                        index += 1
                    }
                }
            }
            if !matched {
                switch scope {
                case .section(let heading): found.append("no section \(heading)")
                case .passages(let prefix): found.append("no paragraph beginning \"\(prefix)\"")
                }
            }
        }
        for (paragraph, isChecked) in zip(paragraphs, checked) where isChecked {
            // A paragraph opened by a `past` comment on a line of its own is marked as a whole.
            if let first = paragraph.split(separator: "\n").first, first.hasPrefix(pastMarker), first.hasSuffix("-->") { continue }
            found += bareNumbers(in: paragraph)
        }
        return found
    }

    /// `document` with what is never prose blanked out, lines kept: fenced code blocks and the
    /// generated results block, whose figures are checked against the JSON as a whole.
    static func masked(_ document: String) -> String {
        var lines: [Substring] = []
        var inFence = false
        var inGenerated = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmed(" ")
            if trimmed.hasPrefix("```") {
                inFence.toggle()
                lines.append("")
            } else if trimmed.hasPrefix(ResultsMarkdown.beginPrefix) {
                inGenerated = true
                lines.append("")
            } else if trimmed.hasPrefix(ResultsMarkdown.end) {
                inGenerated = false
                lines.append("")
            } else {
                lines.append(inFence || inGenerated ? "" : line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The paragraphs of `text`, split at blank lines; a heading is a paragraph of its own.
    static func paragraphs(of text: String) -> [String] {
        var found: [String] = []
        var current: [Substring] = []
        func close() {
            if !current.isEmpty { found.append(current.joined(separator: "\n")) }
            current = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) {
                close()
            } else if headingLevel(line) != nil {
                close()
                found.append(String(line))
            } else {
                current.append(line)
            }
        }
        close()
        return found
    }

    /// The level of a Markdown heading line ("### M1" is 3), or nil for any other line.
    static func headingLevel<S: StringProtocol>(_ line: S) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard hashes > 0, line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }

    /// The numbers with a result unit in `paragraph` that no `fig` or `past` comment follows,
    /// outside backticks and comments, and not goals.
    static func bareNumbers(in paragraph: String) -> [String] {
        var found: [String] = []
        var text = Substring(paragraph)
        var inCode = false
        while let next = text.firstIndex(where: { $0.isASCIIDigit || $0 == "`" || $0 == "<" }) {
            let character = text[next]
            if character == "`" {
                inCode.toggle()
                text = text[text.index(after: next)...]
                continue
            }
            if character == "<" {
                // A comment's text (a figure's spec, a reason) is not prose.
                if !inCode, text[next...].hasPrefix("<!--"), let end = text[next...].range(of: "-->") {
                    text = text[end.upperBound...]
                } else {
                    text = text[text.index(after: next)...]
                }
                continue
            }
            var cursor = next
            while cursor < text.endIndex, text[cursor].isASCIIDigit || text[cursor] == "." { cursor = text.index(after: cursor) }
            let number = text[next..<cursor].trimmingTrailingDots
            let before = paragraph[paragraph.startIndex..<next]
            // Part of a name (M10, p99, 2w, hb_shape), not a number.
            let inName = before.last.map { $0.isLetter || $0 == "_" || $0.isASCIIDigit } ?? false
            let after = text[cursor...]
            if !inCode, !inName, !thresholdWords.contains(where: { before.hasSuffix($0) }),
               let unit = resultUnits.first(where: { after.hasPrefix($0) }),
               // "1280×800" is a size, not a ratio.
               !(unit == "×" && after.dropFirst().first?.isASCIIDigit == true) {
                let rest = after.dropFirst(unit.count).drop { $0 == " " }
                if !rest.hasPrefix(marker), !rest.hasPrefix(pastMarker) { found.append(String(number) + unit) }
            }
            text = text[cursor...]
        }
        return found
    }
}

extension Substring {
    /// A number read up to a sentence's full stop, without it: "4" of "in 4.".
    var trimmingTrailingDots: Substring {
        var result = self
        while result.last == "." { result.removeLast() }
        return result
    }
}
