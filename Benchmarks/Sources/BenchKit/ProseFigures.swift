import Foundation

/// Figures quoted in prose (the README, BENCHMARKS.md), each tied to the results it quotes by an
/// HTML comment right after it, which the rendered page does not show:
///
///     misses 15<!-- fig M9 gtk_late_frames_2000 --> of 600
///     0.21×<!-- fig M9 strata_process_cpu_per_frame_2000 / M9 gtk_process_cpu_per_frame_2000 -->
///     1.7–2.2×<!-- fig 2026-11-27-M1-M12.json range M1 warm_vs_cairo_1w, M1 warm_vs_cairo_2w -->
///
/// A figure reads from the newest full run unless a results file is named first. The number
/// before the comment must be the figure rounded to the digits written; a range must be the
/// smallest and largest of the figures named. So a number in prose cannot drift from the JSON.
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

    /// Every annotation in `document`, with the number written before it; an annotation with
    /// no number before it comes back with `written` empty, which `check` reports.
    public static func annotations(in document: String) -> [Annotation] {
        var found: [Annotation] = []
        for (index, line) in document.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = Substring(line)
            var before = ""
            while let start = rest.range(of: marker), let end = rest[start.upperBound...].range(of: "-->") {
                before += rest[..<start.lowerBound]
                // A comment shown as code (between backticks) is an example, not an annotation.
                if before.filter({ $0 == "`" }).count % 2 == 1 {
                    before += rest[start.lowerBound..<end.upperBound]
                    rest = rest[end.upperBound...]
                    continue
                }
                let body = rest[start.upperBound..<end.lowerBound].trimmed(" ")
                let words = body.split(separator: " ", maxSplits: 1).map(String.init)
                let named = words.first?.hasSuffix(".json") == true
                let source = named ? words.first : nil
                let spec = named ? (words.count > 1 ? words[1] : "") : body
                found.append(Annotation(source: source, spec: spec, written: trailingNumber(before), line: index + 1))
                rest = rest[end.upperBound...]
            }
        }
        return found
    }

    /// The number or range at the end of `text`, its unit dropped: "1.7–2.2" of "draw 1.7–2.2×".
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
            func value(_ reference: Substring) -> Double? {
                let parts = reference.split(separator: " ")
                guard parts.count == 2 else { return nil }
                return results.figures.first { $0.metricID == parts[0] && $0.name == parts[1] }?.value
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
            let written = annotation.written.split(separator: "–").map(String.init)
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

    /// The numbers with a unit of ×, ms or MiB in `section` of `document` (from its heading to
    /// the next heading of the same level) that carry no figure comment: the gate that keeps
    /// new prose numbers tied to the results.
    public static func unannotated(in document: String, section heading: String) -> [String] {
        guard let start = document.range(of: "\n" + heading + "\n") else { return ["no section \(heading)"] }
        let level = heading.prefix { $0 == "#" } + " "
        let body = document[start.upperBound...]
        let end = body.range(of: "\n" + level)?.lowerBound ?? body.endIndex
        var text = Substring(body[..<end])
        var found: [String] = []
        let units = ["×", " ms", " MiB"]
        while let digit = text.firstIndex(where: \.isASCIIDigit) {
            var cursor = digit
            while cursor < text.endIndex, text[cursor].isASCIIDigit || text[cursor] == "." { cursor = text.index(after: cursor) }
            let number = text[digit..<cursor]
            let after = text[cursor...]
            if let unit = units.first(where: { after.hasPrefix($0) }) {
                let rest = after.dropFirst(unit.count).drop { $0 == " " }
                if !rest.hasPrefix(marker) { found.append(String(number) + unit) }
            }
            text = text[cursor...]
        }
        return found
    }
}
