import Testing
import Strata
import StrataPlatform
import WaylandTestSupport

/// A text view in a real window on the scripted compositor: what it commits as text is typed.
@MainActor
struct TextViewWindowTests {
    @Test func typedTextReachesTheCommittedBuffers() throws {
        let server = try TestCompositor()
        server.installShell()
        server.answerFramesAutomatically(true)
        server.captureFrames()
        let session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
        session.castNoWindowShadows()
        let window = try Window(session: session, title: "note", size: Size(width: 320, height: 160))
        let view = TextView()
        window.contentLayer.addSublayer(view)
        window.contentLayer.layoutHandler = { [view] content in view.frame = content.bounds }
        try session.run(until: { server.observed.toplevels == 1 })
        server.configureToplevels()
        try session.run(until: { server.observed.bufferCommits >= 1 })
        window.host.input.focus(view, visible: false)
        func inkedColumns() -> Int {
            guard let frame = server.observed.lastFrame else { return 0 }
            var columns = Set<Int>()
            for y in 32..<frame.height { for x in 0..<frame.width where (frame[x, y] >> 8) & 0xFF < 100 { columns.insert(x) } }
            return columns.count
        }
        var counts: [Int] = []
        for (index, character) in "Dear diary".enumerated() {
            let scalar = character.unicodeScalars.first!.value
            let commits = server.observed.bufferCommits
            window.host.input.post(.key(KeyInput(keysym: Keysym(rawValue: scalar), state: .pressed, text: String(character))))
            // The caret blinks, so the window is never idle: a few frames after the key.
            try session.run(until: { view.text.count == index + 1 && server.observed.bufferCommits > commits + 3 })
            counts.append(inkedColumns())
        }
        #expect(view.text == "Dear diary")
        // A burst, as a virtual keyboard types: every key before the next frame.
        let before = inkedColumns()
        for character in ",\rtoday" {
            let keysym = character == "\r" ? Keysym.return : Keysym(rawValue: character.unicodeScalars.first!.value)
            window.host.input.post(.key(KeyInput(keysym: keysym, state: .pressed, text: character == "\r" ? "" : String(character))))
        }
        let commits = server.observed.bufferCommits
        try session.run(until: { server.observed.bufferCommits > commits + 3 })
        #expect(view.text == "Dear diary,\ntoday")
        // The first line still shows all of its text, though the caret left it in the burst.
        func inkedColumns(rows: Range<Int>) -> Int {
            guard let frame = server.observed.lastFrame else { return 0 }
            var columns = Set<Int>()
            for y in rows { for x in 0..<frame.width where (frame[x, y] >> 8) & 0xFF < 100 { columns.insert(x) } }
            return columns.count
        }
        #expect(inkedColumns(rows: 32..<58) >= before, "the first line: \(before) → \(inkedColumns(rows: 32..<58))")
        #expect(inkedColumns(rows: 58..<90) > 10, "the second line shows")
        #expect(counts.last ?? 0 > (counts.first ?? 0) * 4, "the committed frames show the text growing: \(counts)")
    }
}
