import Testing
import Strata
import StrataPlatform
import WaylandClient
import WaylandTestSupport

/// A window's text fields and the compositor's `zwp_text_input_v3`, played by the test: what
/// the field sends as it gains and loses the focus, and what it does with an input method's
/// preedit, commits and deletions. The same against sway and a real input method is in
/// `InputMethodEndToEndTests`; sway 1.7 never passes the cursor rectangle on to input methods,
/// so it is checked here, against the pixels the window committed.
@MainActor
struct TextInputTests {
    /// A window on a test compositor with a text input seat, holding `field` and a button.
    @MainActor
    final class Rig {
        let server: TestCompositor
        let textInput: TextInputScript
        let session: WaylandSession
        let window: Window
        let field: TextField
        let button = Button(title: "OK")

        init(field: TextField, output: (scale: Int32, fractional: UInt32?)? = nil) throws {
            server = try TestCompositor()
            server.installShell()
            if output != nil {
                server.offerOutput()
                server.offerFractionalScale()
            }
            textInput = server.addTextInputSeat()
            server.answerFramesAutomatically(true)
            server.captureFrames()
            session = try WaylandSession.connect(to: server.socketPath, loop: MainLoop())
            session.castNoWindowShadows()
            window = try Window(session: session, title: "text input", size: Size(width: 320, height: 120))
            self.field = field
            window.contentLayer.addSublayer(field)
            window.contentLayer.addSublayer(button)
            window.contentLayer.layoutHandler = { [field, button] _ in
                field.frame = Rect(x: 24, y: 30, width: 220, height: 34)
                button.frame = Rect(x: 24, y: 76, width: 80, height: 32)
            }
            try session.run(until: { self.server.observed.toplevels == 1 && self.textInput.observed.textInputsCreated == 1 })
            server.configureToplevels()
            try session.run(until: { self.server.observed.bufferCommits >= 1 })
            if let output {
                server.enterOutput()
                server.sendOutputScale(output.scale)
                if let fractional = output.fractional { server.sendPreferredScale(fractional) }
                let expected = output.fractional.map { Double($0) / 120 } ?? Double(output.scale)
                try session.run(until: { self.window.host.scale == expected })
            }
        }

        var state: TextInputCommittedState { textInput.observed.current }

        func enter() throws {
            textInput.enter(surface: window.surface.id)
            try session.run(until: { self.window.host.textInput != nil })
        }

        func focusField() { window.host.input.focus(field, visible: false) }

        /// The last frame the window committed, once it has nothing left to draw: what it shows
        /// now. (Waiting for a commit after the call raced with the one the change had already
        /// made, which under load could land before the call, and then no other came.)
        func settledFrame() throws -> TestFrame {
            try session.run(until: { self.window.host.isIdle && self.server.observed.bufferCommits > 0 })
            return try #require(server.observed.lastFrame)
        }

        /// Sends `done` and runs until the field answered it with a commit of its own.
        func done() throws {
            let commits = textInput.observed.commits
            textInput.done()
            try session.run(until: { self.textInput.observed.commits > commits })
        }
    }

    @Test func focusEnablesTheInputMethodWithTheFieldsStateAndBlurDisablesIt() throws {
        let field = TextField(text: "héllo")
        field.contentType = TextContentType(purpose: .email, hints: [.completion])
        let rig = try Rig(field: field)
        rig.focusField()
        try rig.session.run(for: .milliseconds(50))
        #expect(rig.textInput.observed.commits == 0, "nothing is sent before the text input entered the surface")

        try rig.enter()
        try rig.session.run(until: { rig.state.enabled })
        #expect(rig.state.surroundingText == "héllo")
        #expect(rig.state.cursor == 6 && rig.state.anchor == 6, "UTF-8 byte offsets: é is two bytes")
        #expect(rig.state.purpose == 6 && rig.state.hint == 1)
        #expect(rig.state.changeCause == 1)

        // Typing changes the state the input method sees.
        field.insert("!")
        try rig.session.run(until: { rig.state.surroundingText == "héllo!" })
        #expect(rig.state.cursor == 7)

        // A button takes the focus: the input method is disabled.
        rig.window.host.input.focus(rig.button, visible: true)
        try rig.session.run(until: { !rig.state.enabled })
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })
        rig.textInput.leave(surface: rig.window.surface.id)
        try rig.session.run(until: { !rig.state.enabled })
    }

    @Test func aPreeditShowsUnderlinedAndTheCommitReplacesIt() throws {
        let field = TextField(text: "说")
        field.caretBlinkTimeout = 0
        let rig = try Rig(field: field)
        try rig.enter()
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })

        rig.textInput.preedit(Array("ni hao".utf8), cursorBegin: 2, cursorEnd: 2)
        try rig.done()
        #expect(rig.field.text == "说ni hao")
        #expect(rig.field.editor.markedRange == 1..<7)
        #expect(rig.field.editor.selection == TextSelection(caret: 3))
        #expect(rig.state.surroundingText == "说", "the preedit is not surrounding text")
        #expect(rig.state.changeCause == 0)
        let withPreedit = try rig.settledFrame()

        // The same letters committed: the only pixels gone are the underline's.
        rig.textInput.preedit(nil, cursorBegin: 0, cursorEnd: 0)
        rig.textInput.commitString(Array("ni hao".utf8))
        try rig.done()
        #expect(rig.field.text == "说ni hao" && rig.field.editor.markedRange == nil)
        let committed = try rig.settledFrame()
        func green(_ pixel: UInt32) -> Int { Int((pixel >> 8) & 0xFF) }
        var longestRun = 0
        for y in 0..<withPreedit.height {
            var run = 0
            for x in 0..<withPreedit.width {
                run = green(withPreedit[x, y]) + 60 < green(committed[x, y]) ? run + 1 : 0
                longestRun = max(longestRun, run)
            }
        }
        #expect(longestRun >= 30, "the preedit is underlined across its width (\(longestRun) px)")

        rig.field.undo()
        #expect(rig.field.text == "说", "the commit is one undo step")
        rig.textInput.preedit(Array("nihao".utf8), cursorBegin: 5, cursorEnd: 5)
        try rig.done()
        rig.textInput.preedit(nil, cursorBegin: 0, cursorEnd: 0)
        rig.textInput.commitString(Array("你好".utf8))
        try rig.done()
        #expect(rig.field.text == "说你好")
        #expect(rig.field.editor.markedRange == nil)
        #expect(rig.state.surroundingText == "说你好" && rig.state.cursor == 9)
        #expect(rig.state.changeCause == 0, "the input method made the change")
    }

    @Test func deleteSurroundingTextRemovesWhatItShould() throws {
        let rig = try Rig(field: TextField(text: "hello world"))
        try rig.enter()
        rig.focusField()
        rig.field.selection = TextSelection(caret: 8)
        try rig.session.run(until: { rig.state.enabled && rig.state.cursor == 8 })
        // "wo|rld": two bytes before and one after go, then the commit lands at the caret.
        rig.textInput.deleteSurrounding(before: 2, after: 1)
        rig.textInput.commitString(Array("W".utf8))
        try rig.done()
        #expect(rig.field.text == "hello Wld")
        #expect(rig.state.surroundingText == "hello Wld" && rig.state.cursor == 7)
        // Lengths past the text are clamped.
        rig.textInput.deleteSurrounding(before: .max, after: .max)
        try rig.done()
        #expect(rig.field.text == "")
    }

    @Test func invalidUTF8FromTheInputMethodIsReplaced() throws {
        let rig = try Rig(field: TextField())
        try rig.enter()
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })
        rig.textInput.preedit([0x61, 0xC3], cursorBegin: 99, cursorEnd: -5)
        try rig.done()
        #expect(rig.field.text == "a\u{FFFD}")
        rig.textInput.preedit(nil, cursorBegin: 0, cursorEnd: 0)
        rig.textInput.commitString([0x61, 0xFF, 0x62])
        try rig.done()
        #expect(rig.field.text == "a\u{FFFD}b")
    }

    @Test func theInputMethodLeavingMidPreeditTakesThePreeditAway() throws {
        let rig = try Rig(field: TextField(text: "ab"))
        try rig.enter()
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })
        rig.textInput.preedit(Array("xyz".utf8), cursorBegin: 3, cursorEnd: 3)
        try rig.done()
        #expect(rig.field.text == "abxyz")
        // The input method went away: sway sends `leave`.
        rig.textInput.leave(surface: rig.window.surface.id)
        try rig.session.run(until: { !rig.state.enabled })
        #expect(rig.field.text == "ab")
        #expect(rig.field.editor.markedRange == nil)
        // Events after it left change nothing.
        rig.textInput.commitString(Array("late".utf8))
        rig.textInput.done()
        try rig.session.run(for: .milliseconds(50))
        #expect(rig.field.text == "ab")
        // Typing still works: keys were never the input method's to swallow.
        rig.field.insert("c")
        #expect(rig.field.text == "abc")
    }

    @Test func aTextViewTakesTheInputMethodToo() throws {
        let rig = try Rig(field: TextField())
        let view = TextView(text: "first\nsecond")
        view.frame = Rect(x: 24, y: 76, width: 260, height: 40)
        rig.window.contentLayer.addSublayer(view)
        try rig.enter()
        rig.window.host.input.focus(view, visible: false)
        try rig.session.run(until: { rig.state.enabled && rig.state.surroundingText == "first\nsecond" })
        #expect(rig.state.hint & 0x200 != 0, "multiline")
        rig.textInput.preedit(Array("ni".utf8), cursorBegin: 2, cursorEnd: 2)
        try rig.done()
        #expect(view.text == "first\nsecondni" && view.editor.markedRange != nil)
        rig.textInput.preedit(nil, cursorBegin: 0, cursorEnd: 0)
        rig.textInput.commitString(Array("你".utf8))
        try rig.done()
        #expect(view.text == "first\nsecond你")
        #expect(rig.state.surroundingText == "first\nsecond你")
        // The cursor rectangle is the caret's, in the window: below the title bar and the field.
        let rect = try #require(rig.state.cursorRectangle)
        let caret = view.textInputCursorRect
        let expected = view.convertToHost(Point(x: caret.minX, y: caret.minY))
        #expect(caret.height > 10 && caret.minY > 8, "the second paragraph's line")
        #expect(rect.y > 32 + 76, "below the title bar and the view's top")
        #expect(rect.x == Int32(expected.x.rounded()) && rect.y == Int32(expected.y.rounded()), "\(rect) vs \(expected)")
    }

    @Test func aSecureFieldNeverOffersItsText() throws {
        let field = TextField(text: "hunter2")
        field.isSecureTextEntry = true
        let rig = try Rig(field: field)
        try rig.enter()
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })
        #expect(rig.state.surroundingText == nil)
        #expect(rig.state.purpose == 8)
        #expect(rig.state.hint & 0xC0 == 0xC0, "hidden text and sensitive data")
    }

    @Test func aReadOnlyFieldDisablesTheInputMethod() throws {
        let rig = try Rig(field: TextField(text: "fixed"))
        try rig.enter()
        rig.focusField()
        try rig.session.run(until: { rig.state.enabled })
        rig.field.isEditable = false
        try rig.session.run(until: { !rig.state.enabled })
        rig.field.isEditable = true
        try rig.session.run(until: { rig.state.enabled })
    }

    /// The cursor rectangle is in surface coordinates, below Strata's own title bar, and lands on
    /// the caret the window drew, at integer and fractional scales.
    @Test(arguments: [(Int32(1), UInt32?.none), (2, nil), (1, 180)])
    func theCursorRectangleIsTheCaretOnScreen(scale: Int32, fractional: UInt32?) throws {
        let field = TextField(text: "caret")
        field.caretColor = Color(rgb: 0xFF0000)
        field.caretBlinkTimeout = 0
        let rig = try Rig(field: field, output: (scale, fractional))
        #expect(rig.window.hasClientDecorations)
        try rig.enter()
        rig.focusField()
        rig.field.selection = TextSelection(caret: 2)
        let scale = rig.window.host.scale
        func isCaret(_ pixel: UInt32) -> Bool {
            (pixel >> 16) & 0xFF > 200 && (pixel >> 8) & 0xFF < 60 && pixel & 0xFF < 60
        }
        try rig.session.run(until: {
            rig.state.cursorRectangle != nil && rig.window.host.isIdle
                && rig.server.observed.lastFrame.map { Double($0.width) == (320 * scale).rounded() } == true
                && rig.server.observed.lastFrame?.bounds(where: isCaret) != nil
        })
        let frame = try #require(rig.server.observed.lastFrame)
        let caret = try #require(frame.bounds(where: isCaret))
        let rect = try #require(rig.state.cursorRectangle)
        // The caret's pixels, in surface points.
        let centre = Double(caret.minX + caret.maxX + 1) / 2 / scale
        let top = Double(caret.minY) / scale, bottom = Double(caret.maxY + 1) / scale
        #expect(abs(Double(rect.x) + Double(rect.width) / 2 - centre) <= 1, "x \(rect.x)+\(rect.width)/2 vs \(centre)")
        #expect(abs(Double(rect.y) - top) <= 1, "top \(rect.y) vs \(top)")
        #expect(abs(Double(rect.y + rect.height) - bottom) <= 1, "bottom \(rect.y + rect.height) vs \(bottom)")
        #expect(rect.y > 32, "below the 32-point title bar")
    }

    /// An embedding client forwards its own text input: the embedded field is enabled through
    /// the host's object, its cursor rectangle is moved by where the embedded surface sits, and
    /// the input method's commit lands in it.
    @Test func anEmbeddingHostForwardsItsTextInput() throws {
        let server = try TestCompositor()
        server.installShell()
        let script = server.addTextInputSeat()
        // The host: its own connection, seat and text input.
        let connection = try Connection.connect(to: server.socketPath)
        let registry = connection.registry
        let compositor = try registry.bind(WlCompositor.self, maxVersion: 4)
        let seat = try registry.bind(WlSeat.self, maxVersion: 1)
        let manager = try registry.bind(ZwpTextInputManagerV3.self, maxVersion: 1)
        let textInput = try manager.getTextInput(seat: seat)
        let surface = try compositor.createSurface()
        let loop = MainLoop()
        let session = try WaylandSession(adopting: connection.anchor.display, loop: loop)
        let embedded = try EmbeddedSurface(session: session, surface: try #require(surface.raw), size: Size(width: 200, height: 60))
        embedded.attachTextInput(textInput, origin: Point(x: 40, y: 30))
        textInput.addListener { embedded.forward($0) }
        let field = TextField(text: "abc")
        field.frame = Rect(x: 10, y: 10, width: 180, height: 34)
        embedded.rootLayer.addSublayer(field)
        embedded.host.input.focus(field, visible: false)
        func pump(until condition: () -> Bool) throws {
            try poll(until: condition, timeout: .seconds(10), sourceLocation: #_sourceLocation) { () throws in
                _ = try connection.dispatch(timeout: .milliseconds(20))
                try loop.dispatch()
            }
        }
        try pump(until: { script.observed.textInputsCreated == 1 })
        script.enter(surface: surface.id)
        try pump(until: { script.observed.current.enabled })
        #expect(script.observed.current.surroundingText == "abc")
        let rect = try #require(script.observed.current.cursorRectangle)
        let caret = field.textInputCursorRect
        #expect(rect.x == Int32((caret.minX + 10 + 40).rounded()) && rect.y == Int32((caret.minY + 10 + 30).rounded()),
                "the caret in the host's surface: \(rect)")

        script.commitString(Array("!".utf8))
        let commits = script.observed.commits
        script.done()
        try pump(until: { script.observed.commits > commits })
        #expect(field.text == "abc!")
        #expect(script.observed.current.surroundingText == "abc!")
        script.leave(surface: surface.id)
        try pump(until: { !script.observed.current.enabled })
    }
}
