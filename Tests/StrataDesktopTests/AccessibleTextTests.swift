import CAtspiConstants
import CoreTestSupport
import DBusTestSupport
import StrataCore
import StrataDBus
import StrataDesktop
import StrataPlatform
import StrataWidgets
import Testing

/// The Text interface of the text widgets through the bridge, as a screen reader uses it: where
/// characters are, moving the caret and selecting, and how the text is styled. Offsets are
/// Unicode scalars, so each text has a character outside the BMP before the ones asked about.
@MainActor
@Suite(.serialized)
struct AccessibleTextTests {
    private func extents(_ rig: Rig, _ path: String, _ member: String, _ arguments: [DBusValue]) throws -> Rect {
        let values = try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, arguments).get().values.compactMap(\.int32)
        try #require(values.count == 4)
        return Rect(x: Double(values[0]), y: Double(values[1]), width: Double(values[2]), height: Double(values[3]))
    }

    private func offset(_ rig: Rig, _ path: String, at point: Point) throws -> Int32? {
        try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetOffsetAtPoint", [.int32(Int32(point.x)), .int32(Int32(point.y)), .uint32(1)])
            .get().values.first?.int32
    }

    @Test func aFieldsCharactersHaveExtentsAndAPointFindsTheCharacterUnderIt() throws {
        let rig = try Rig()
        let field = TextField(text: "a🌍 world")
        field.frame = Rect(x: 10, y: 20, width: 200, height: 40)
        rig.window.host.rootLayer.addSublayer(field)
        try rig.window.scene.settle()
        let path = try rig.path(field)
        let first = try extents(rig, path, "GetCharacterExtents", [.int32(0), .uint32(1)])
        let globe = try extents(rig, path, "GetCharacterExtents", [.int32(1), .uint32(1)])
        let o = try extents(rig, path, "GetCharacterExtents", [.int32(4), .uint32(1)])
        #expect(first.width > 0 && first.height > 0 && first.minX >= 10 && first.minY >= 20 && first.maxY <= 60, "\(first)")
        #expect(globe.minX >= first.maxX - 1 && globe.minY == first.minY, "\(first) \(globe)")
        #expect(o.minX > globe.maxX && o.maxX < 210, "\(globe) \(o)")
        let whole = try extents(rig, path, "GetRangeExtents", [.int32(0), .int32(-1), .uint32(1)])
        #expect(whole.minX <= first.minX && whole.maxX >= o.maxX, "\(whole)")
        #expect(try offset(rig, path, at: Point(x: o.midX, y: o.midY)) == 4)
        #expect(try offset(rig, path, at: Point(x: globe.midX, y: globe.midY)) == 1)
        #expect(try offset(rig, path, at: Point(x: 5, y: 5)) == -1, "nothing is under a point off the field")

        // A secure field's characters are its bullets.
        field.isSecureTextEntry = true
        try rig.window.scene.settle()
        let bullet = try extents(rig, path, "GetCharacterExtents", [.int32(4), .uint32(1)])
        #expect(bullet.width > 0 && bullet.minX > first.minX, "\(bullet)")
        #expect(try offset(rig, path, at: Point(x: bullet.midX, y: bullet.midY)) == 4)
    }

    @Test func aTextViewsLinesAreToldWhereItsParagraphsWrap() throws {
        let rig = try Rig()
        let text = "alpha beta gamma delta epsilon eta theta\nzeta\n\nend"
        let view = TextView(text: text)
        view.frame = Rect(x: 0, y: 0, width: 110, height: 300)
        rig.window.host.rootLayer.addSublayer(view)
        try rig.window.scene.settle()
        let path = try rig.path(view)
        func line(at offset: Int) throws -> Range<Int> {
            let values = try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetStringAtOffset",
                                      [.int32(Int32(offset)), .uint32(ATSPI_TEXT_GRANULARITY_LINE.rawValue)]).get().values
            try #require(values.count == 3)
            return Int(values[1].int32 ?? -1)..<Int(values[2].int32 ?? -1)
        }
        // The first paragraph's lines follow one another to its line feed, each shorter than it.
        var lines: [Range<Int>] = [], offset = 0
        while offset < 41, lines.count < 20 {
            let found = try line(at: offset)
            try #require(found.lowerBound == offset && found.upperBound > offset, "line at \(offset): \(found)")
            #expect(try line(at: found.upperBound - 1) == found)
            lines.append(found)
            offset = found.upperBound
        }
        #expect(lines.count >= 3 && offset == 41, "the paragraph wraps: \(lines)")
        #expect(try line(at: 43) == 41..<46, "zeta and its line feed")
        #expect(try line(at: 46) == 46..<47, "an empty paragraph is its line feed")
        #expect(try line(at: 50) == 47..<50, "the end is on the last line")
    }

    @Test func aTextViewsCharactersAreFoundInTheirParagraphs() throws {
        let rig = try Rig()
        let view = TextView(text: "Hi 🌍 there\nSecond line")
        view.frame = Rect(x: 10, y: 20, width: 250, height: 120)
        rig.window.host.rootLayer.addSublayer(view)
        try rig.window.scene.settle()
        let path = try rig.path(view)
        let h = try extents(rig, path, "GetCharacterExtents", [.int32(0), .uint32(1)])
        let t = try extents(rig, path, "GetCharacterExtents", [.int32(5), .uint32(1)])
        // "S" is scalar 11: the second paragraph's first character, a line below.
        let s = try extents(rig, path, "GetCharacterExtents", [.int32(11), .uint32(1)])
        #expect(h.width > 0 && h.minX >= 10 && h.minY >= 20, "\(h)")
        #expect(t.minY == h.minY && t.minX > h.maxX, "\(h) \(t)")
        #expect(s.minY >= h.maxY - 1 && abs(s.minX - h.minX) < 2, "\(h) \(s)")
        let both = try extents(rig, path, "GetRangeExtents", [.int32(0), .int32(-1), .uint32(1)])
        #expect(both.minY <= h.minY && both.maxY >= s.maxY, "\(both)")
        #expect(try offset(rig, path, at: Point(x: t.midX, y: t.midY)) == 5)
        #expect(try offset(rig, path, at: Point(x: s.midX, y: s.midY)) == 11)

        // Scrolled, the characters move with the text.
        view.text = (0..<40).map { "Line \($0)" }.joined(separator: "\n")
        try rig.window.scene.settle()
        let before = try extents(rig, path, "GetCharacterExtents", [.int32(0), .uint32(1)])
        view.setContentOffset(Point(x: 0, y: 30), animated: false)
        try rig.window.scene.settle()
        let after = try extents(rig, path, "GetCharacterExtents", [.int32(0), .uint32(1)])
        #expect(after.minY == before.minY - 30, "\(before) \(after)")
        // A range over many paragraphs is answered without laying them all out.
        let all = try extents(rig, path, "GetRangeExtents", [.int32(0), .int32(-1), .uint32(1)])
        #expect(all.height > 300, "\(all)")
    }

    /// `GetTextAtOffset`, `GetTextBeforeOffset` and `GetTextAfterOffset`, which Orca 43 reads
    /// words and lines with: each boundary's piece at, before and after an offset, as GTK gives.
    @Test func theOlderCallsFindPiecesAtBeforeAndAfterAnOffsetByBoundary() throws {
        let rig = try Rig()
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var element = AccessibilityElement(role: .label, label: "prose")
        // Scalars: the globe is 0, "Hello" 2…6, "wide" 8…11, "world." 13…18, "Bye" 20…22,
        // "now." 24…27, the line feed 28, "Last line" 29…37.
        element.text = AccessibilityText("🌍 Hello wide world. Bye now.\nLast line")
        layer.accessibility = element
        rig.window.host.rootLayer.addSublayer(layer)
        let path = try rig.path(layer)
        func piece(_ member: String, _ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> [DBusValue] {
            try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, [.int32(offset), .uint32(boundary.rawValue)]).get().values
        }
        func at(_ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> [DBusValue] { try piece("GetTextAtOffset", offset, boundary) }
        func before(_ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> [DBusValue] { try piece("GetTextBeforeOffset", offset, boundary) }
        func after(_ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> [DBusValue] { try piece("GetTextAfterOffset", offset, boundary) }
        func told(_ string: String, _ start: Int32, _ end: Int32) -> [DBusValue] { [.string(string), .int32(start), .int32(end)] }

        // Characters are scalars.
        #expect(try at(1, ATSPI_TEXT_BOUNDARY_CHAR) == told(" ", 1, 2))
        #expect(try before(1, ATSPI_TEXT_BOUNDARY_CHAR) == told("🌍", 0, 1))
        #expect(try after(1, ATSPI_TEXT_BOUNDARY_CHAR) == told("H", 2, 3))
        #expect(try before(0, ATSPI_TEXT_BOUNDARY_CHAR) == told("", 0, 0))
        #expect(try after(37, ATSPI_TEXT_BOUNDARY_CHAR) == told("", 38, 38))
        // Word starts: from a word's start to the next word's; word ends: from the end of the
        // word before to the end of this one.
        #expect(try at(9, ATSPI_TEXT_BOUNDARY_WORD_START) == told("wide ", 8, 13))
        #expect(try before(9, ATSPI_TEXT_BOUNDARY_WORD_START) == told("Hello ", 2, 8))
        #expect(try after(9, ATSPI_TEXT_BOUNDARY_WORD_START) == told("world. ", 13, 20))
        #expect(try at(9, ATSPI_TEXT_BOUNDARY_WORD_END) == told(" wide", 7, 12))
        #expect(try before(9, ATSPI_TEXT_BOUNDARY_WORD_END) == told("🌍 Hello", 0, 7))
        #expect(try after(9, ATSPI_TEXT_BOUNDARY_WORD_END) == told(" world", 12, 18))
        #expect(try at(38, ATSPI_TEXT_BOUNDARY_WORD_START) == told("line", 34, 38), "the end is in the last word")
        #expect(try after(38, ATSPI_TEXT_BOUNDARY_WORD_START) == told("", 38, 38))
        #expect(try before(1, ATSPI_TEXT_BOUNDARY_WORD_START) == told("", 0, 0))
        // Sentences, where ICU divides them; a sentence's end is after its full stop.
        #expect(try at(22, ATSPI_TEXT_BOUNDARY_SENTENCE_START) == told("Bye now.\n", 20, 29))
        #expect(try before(22, ATSPI_TEXT_BOUNDARY_SENTENCE_START) == told("🌍 Hello wide world. ", 0, 20))
        #expect(try at(22, ATSPI_TEXT_BOUNDARY_SENTENCE_END) == told(" Bye now.", 19, 28))
        #expect(try after(22, ATSPI_TEXT_BOUNDARY_SENTENCE_END) == told("\nLast line", 28, 38))
        // Line starts take the line feed at their end; line ends take the one before.
        #expect(try at(22, ATSPI_TEXT_BOUNDARY_LINE_START) == told("🌍 Hello wide world. Bye now.\n", 0, 29))
        #expect(try after(22, ATSPI_TEXT_BOUNDARY_LINE_START) == told("Last line", 29, 38))
        #expect(try before(22, ATSPI_TEXT_BOUNDARY_LINE_START) == told("", 0, 0))
        #expect(try at(22, ATSPI_TEXT_BOUNDARY_LINE_END) == told("🌍 Hello wide world. Bye now.", 0, 28))
        #expect(try at(28, ATSPI_TEXT_BOUNDARY_LINE_END) == told("🌍 Hello wide world. Bye now.", 0, 28), "a line feed ends its line")
        #expect(try after(22, ATSPI_TEXT_BOUNDARY_LINE_END) == told("\nLast line", 28, 38))
        #expect(try before(31, ATSPI_TEXT_BOUNDARY_LINE_END) == told("🌍 Hello wide world. Bye now.", 0, 28))
        #expect(try after(31, ATSPI_TEXT_BOUNDARY_LINE_END) == told("", 38, 38))
        // Offsets outside the text find nothing; an unknown boundary is refused.
        for bad: Int32 in [-1, 39, .max, .min] {
            #expect(try at(bad, ATSPI_TEXT_BOUNDARY_WORD_START) == told("", -1, -1))
        }
        #expect(throws: DBusError.self) { try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, "GetTextAtOffset", [.int32(0), .uint32(7)]).get() }
    }

    /// Words and sentences are found in the paragraphs around the offset, not the whole text:
    /// a piece before or after one can still lie across empty and blank paragraphs.
    @Test func wordsAndSentencesReachAcrossBlankParagraphs() throws {
        let rig = try Rig()
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        var element = AccessibilityElement(role: .label, label: "prose")
        // "two" 4…6, line feeds 8, 9 and 13 around three spaces, "Three" 14…18, "four." 20…24,
        // line feed 25, "Five" 26…29.
        element.text = AccessibilityText("One two.\n\n   \nThree four.\nFive")
        layer.accessibility = element
        rig.window.host.rootLayer.addSublayer(layer)
        let path = try rig.path(layer)
        func piece(_ member: String, _ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> [DBusValue] {
            try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, [.int32(offset), .uint32(boundary.rawValue)]).get().values
        }
        func told(_ string: String, _ start: Int32, _ end: Int32) -> [DBusValue] { [.string(string), .int32(start), .int32(end)] }

        #expect(try piece("GetTextAtOffset", 14, ATSPI_TEXT_BOUNDARY_WORD_START) == told("Three ", 14, 20))
        #expect(try piece("GetTextBeforeOffset", 14, ATSPI_TEXT_BOUNDARY_WORD_START) == told("two.\n\n   \n", 4, 14))
        #expect(try piece("GetTextAtOffset", 11, ATSPI_TEXT_BOUNDARY_WORD_START) == told("two.\n\n   \n", 4, 14),
                "a blank paragraph is inside the space after a word")
        #expect(try piece("GetTextAfterOffset", 11, ATSPI_TEXT_BOUNDARY_WORD_END) == told(" four", 19, 24))
        #expect(try piece("GetTextAfterOffset", 0, ATSPI_TEXT_BOUNDARY_WORD_START) == told("two.\n\n   \n", 4, 14))
        #expect(try piece("GetTextBeforeOffset", 27, ATSPI_TEXT_BOUNDARY_SENTENCE_START) == told("Three four.\n", 14, 26))
        #expect(try piece("GetTextBeforeOffset", 27, ATSPI_TEXT_BOUNDARY_SENTENCE_END) == told("\n\n   \nThree four.", 8, 25))
        #expect(try piece("GetTextAfterOffset", 27, ATSPI_TEXT_BOUNDARY_SENTENCE_START) == told("", 30, 30))
    }

    /// Reading a wrapped label line by line with the older calls meets every laid-out line once,
    /// and the lines put together are the text.
    @Test func theOlderCallsStepThroughAWrappedLabelsLines() throws {
        let rig = try Rig()
        let text = "🌍 alpha beta gamma delta epsilon\nzeta"
        let label = Label(text: text)
        label.numberOfLines = 0
        label.frame = Rect(x: 0, y: 0, width: 90, height: 200)
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let path = try rig.path(label)
        func piece(_ member: String, _ offset: Int32, _ boundary: AtspiTextBoundaryType) throws -> (String, Int32, Int32) {
            let values = try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, [.int32(offset), .uint32(boundary.rawValue)]).get().values
            try #require(values.count == 3)
            return (values[0].string ?? "?", values[1].int32 ?? -1, values[2].int32 ?? -1)
        }
        for boundary in [ATSPI_TEXT_BOUNDARY_LINE_START, ATSPI_TEXT_BOUNDARY_LINE_END] {
            var lines: [String] = [], found = try piece("GetTextAtOffset", 0, boundary)
            while found.2 > found.1, lines.count < 20 {
                try #require(Int(found.1) == lines.joined().unicodeScalars.count, "\(boundary): pieces follow one another: \(lines) \(found)")
                lines.append(found.0)
                // An offset on the piece's own line: a line start's first character, a line
                // end's last (its line feed belongs to the line before).
                found = try piece("GetTextAfterOffset", boundary == ATSPI_TEXT_BOUNDARY_LINE_START ? found.1 : found.2 - 1, boundary)
            }
            #expect(lines.joined() == text, "\(boundary): \(lines)")
            #expect(lines.count >= 4, "\(boundary): the first paragraph wraps at 90 points: \(lines)")
        }
    }

    @Test func theCaretAndSelectionAreSetThroughTextAndBadOnesRefused() throws {
        let rig = try Rig()
        let field = TextField(text: "héllo 🌍 world")
        field.frame = Rect(x: 10, y: 20, width: 200, height: 40)
        let label = Label(text: "Plain")
        label.frame = Rect(x: 10, y: 70, width: 200, height: 30)
        rig.window.host.rootLayer.addSublayer(field)
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let path = try rig.path(field)
        func call(_ member: String, _ arguments: [DBusValue], on target: String? = nil) throws -> [DBusValue] {
            try rig.call(target ?? path, ATSPI_DBUS_INTERFACE_TEXT, member, arguments).get().values
        }
        _ = try rig.property(path, ATSPI_DBUS_INTERFACE_TEXT, "CaretOffset")
        try rig.window.scene.settle()
        try rig.flush()
        rig.signals.removeAll()

        // The caret goes after the globe: scalar 7, UTF-16 offset 8; it is told.
        #expect(try call("SetCaretOffset", [.int32(7)]) == [.bool(true)])
        #expect(field.selection == TextSelection(caret: 8))
        try rig.window.scene.settle()
        try pump(rig.loop, until: { rig.signals.contains { $0.path == path && $0.member == "TextCaretMoved" } })
        #expect(rig.signals.contains { $0.path == path && $0.member == "TextCaretMoved" && $0.values[1].int32 == 7 })
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_TEXT, "CaretOffset") == .int32(7))

        // A selection, read back; removed, the caret stays at its end.
        #expect(try call("SetSelection", [.int32(0), .int32(1), .int32(8)]) == [.bool(true)])
        #expect(field.selection == TextSelection(anchor: 1, focus: 9))
        #expect(try call("GetNSelections", []) == [.int32(1)])
        #expect(try call("GetSelection", [.int32(0)]) == [.int32(1), .int32(8)])
        #expect(try call("AddSelection", [.int32(0), .int32(2)]) == [.bool(false)], "one selection at most")
        #expect(try call("RemoveSelection", [.int32(1)]) == [.bool(false)])
        #expect(try call("RemoveSelection", [.int32(0)]) == [.bool(true)])
        #expect(field.selection == TextSelection(caret: 9))
        #expect(try call("GetNSelections", []) == [.int32(0)])
        #expect(try call("RemoveSelection", [.int32(0)]) == [.bool(false)], "nothing left to remove")
        #expect(try call("AddSelection", [.int32(8), .int32(13)]) == [.bool(true)])
        #expect(field.selection == TextSelection(anchor: 9, focus: 14), "\(field.selection)")

        // Hostile offsets change nothing and trap on nothing.
        let kept = field.selection
        for bad: Int32 in [-1, 14, .max, .min] {
            #expect(try call("SetCaretOffset", [.int32(bad)]) == [.bool(false)])
        }
        for (start, end): (Int32, Int32) in [(5, 2), (-3, 2), (0, 14), (0, .max), (.min, .max), (3, 3)] {
            #expect(try call("SetSelection", [.int32(0), .int32(start), .int32(end)]) == [.bool(false)], "\(start)…\(end)")
            #expect(try call("AddSelection", [.int32(start), .int32(end)]) == [.bool(false)], "\(start)…\(end)")
        }
        #expect(try call("SetSelection", [.int32(1), .int32(0), .int32(2)]) == [.bool(false)], "there is no second selection")
        #expect(try call("SetSelection", [.int32(-1), .int32(0), .int32(2)]) == [.bool(false)])
        #expect(field.selection == kept)

        // A label that is not selectable has no caret to set.
        let labelPath = try rig.path(label)
        #expect(try call("SetCaretOffset", [.int32(1)], on: labelPath) == [.bool(false)])
        #expect(try call("SetSelection", [.int32(0), .int32(0), .int32(2)], on: labelPath) == [.bool(false)])
        label.isSelectable = true
        #expect(try call("SetSelection", [.int32(0), .int32(1), .int32(3)], on: labelPath) == [.bool(true)])
        #expect(label.selectedText == "la")

        // A text view's selection, across paragraphs.
        let view = TextView(text: "🌍 one\ntwo")
        view.frame = Rect(x: 10, y: 110, width: 200, height: 80)
        rig.window.host.rootLayer.addSublayer(view)
        try rig.window.scene.settle()
        let viewPath = try rig.path(view)
        #expect(try call("SetSelection", [.int32(0), .int32(2), .int32(8)], on: viewPath) == [.bool(true)])
        #expect(view.selection == TextSelection(anchor: 3, focus: 9))
        #expect(try call("SetCaretOffset", [.int32(9)], on: viewPath) == [.bool(true)])
        #expect(view.selection == TextSelection(caret: 10))
        #expect(try call("SetCaretOffset", [.int32(10)], on: viewPath) == [.bool(false)])
    }

    @Test func attributesAreTheStylesRunsWithTheirBounds() throws {
        let rig = try Rig()
        let label = Label()
        label.font = Font(family: "DejaVu Sans", size: 14)
        label.textColor = .black
        var styled = AttributedText("🌍 plain ", style: TextStyle(font: Font(family: "DejaVu Sans", size: 14)))
        styled.append("bold", style: TextStyle(font: Font(family: "DejaVu Sans", size: 14, weight: .bold)))
        styled.append(" red", style: TextStyle(font: Font(family: "DejaVu Serif", size: 10.5, isItalic: true),
                                               color: Color(red: 1, green: 0, blue: 0), underline: .single))
        label.attributedText = styled
        label.frame = Rect(x: 10, y: 20, width: 250, height: 30)
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let path = try rig.path(label)
        func call(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            try rig.call(path, ATSPI_DBUS_INTERFACE_TEXT, member, arguments).get().values
        }
        func attributes(_ value: DBusValue?) -> [String: String] {
            var result: [String: String] = [:]
            for entry in value?.entries ?? [] { result[entry.key.string ?? ""] = entry.value.string ?? "" }
            return result
        }
        let defaults = attributes(try call("GetDefaultAttributes", []).first)
        #expect(defaults["weight"] == "400" && defaults["style"] == "normal" && defaults["underline"] == "none", "\(defaults)")
        #expect(attributes(try call("GetDefaultAttributeSet", []).first) == defaults)

        // The plain run, scalars 0…8 (the globe is one): nothing beyond the defaults.
        let plain = try call("GetAttributes", [.int32(3)])
        #expect(attributes(plain.first).isEmpty && Array(plain.dropFirst()) == [.int32(0), .int32(8)], "\(plain)")
        let bold = try call("GetAttributeRun", [.int32(8), .bool(false)])
        #expect(attributes(bold.first) == ["weight": "700"] && Array(bold.dropFirst()) == [.int32(8), .int32(12)], "\(bold)")
        let red = try call("GetAttributeRun", [.int32(14), .bool(true)])
        let redAttributes = attributes(red.first)
        #expect(redAttributes["family-name"] == "DejaVu Serif" && redAttributes["size"] == "10.5" && redAttributes["style"] == "italic"
                && redAttributes["weight"] == "400" && redAttributes["fg-color"] == "65535,0,0" && redAttributes["underline"] == "single",
                "\(redAttributes)")
        #expect(Array(red.dropFirst()) == [.int32(12), .int32(16)])
        #expect(try call("GetAttributeValue", [.int32(13), .string("underline")]) == [.string("single"), .int32(12), .int32(16), .bool(true)])
        #expect(try call("GetAttributeValue", [.int32(0), .string("size")]) == [.string("14"), .int32(0), .int32(8), .bool(true)])
        #expect(try call("GetAttributeValue", [.int32(0), .string("no-such")]) == [.string(""), .int32(0), .int32(8), .bool(false)])
        // The end is the last run's; offsets outside the text have none.
        #expect(Array(try call("GetAttributes", [.int32(16)]).dropFirst()) == [.int32(12), .int32(16)])
        for bad: Int32 in [-1, 17, .max, .min] {
            #expect(Array(try call("GetAttributes", [.int32(bad)]).dropFirst()) == [.int32(-1), .int32(-1)])
            #expect(try call("GetAttributeValue", [.int32(bad), .string("size")]).last == .bool(false))
        }

        // A field's text is one run in its font and colour, which are its defaults.
        let field = TextField(text: "🌍 typed")
        field.font = Font(family: "DejaVu Sans Mono", size: 12)
        field.frame = Rect(x: 10, y: 60, width: 200, height: 40)
        rig.window.host.rootLayer.addSublayer(field)
        try rig.window.scene.settle()
        let fieldPath = try rig.path(field)
        let run = try rig.call(fieldPath, ATSPI_DBUS_INTERFACE_TEXT, "GetAttributeRun", [.int32(2), .bool(true)]).get().values
        #expect(attributes(run.first)["family-name"] == "DejaVu Sans Mono" && attributes(run.first)["size"] == "12", "\(run)")
        #expect(Array(run.dropFirst()) == [.int32(0), .int32(7)])
    }
}
