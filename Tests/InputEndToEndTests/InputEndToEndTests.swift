import StrataRender
import Testing
import WaylandClient
import WaylandTestSupport

/// Input end to end, against the headless sway `Scripts/test` starts: `VirtualInput` creates a
/// pointer and a keyboard on sway's seat, and a raw client receives what sway makes of them.
///
/// Serialized: every test's window tiles on the one output, and its devices join the one seat.
/// Each driver and client disconnects when its test ends, which takes its devices and window away.
@Suite(.serialized, .enabled(if: TestEnvironment.hasSway, "needs headless sway: run Scripts/test, or set STRATA_SWAY_DISPLAY"))
@MainActor
struct InputEndToEnd {
    let display: String

    init() throws {
        display = try #require(TestEnvironment.swayDisplay, "STRATA_REQUIRE_SWAY=1, but STRATA_SWAY_DISPLAY names no sway")
    }

    /// A client, once the seat is back to no devices: an earlier test's go when its driver
    /// disconnects, which sway may still be handling.
    func freshClient(colour: UInt32 = 0xff33_66cc, marker: (x: Int, y: Int, side: Int, colour: UInt32)? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> TestClient {
        let client = try TestClient(display: display, colour: colour, marker: marker)
        try client.dispatch(until: { client.capabilities.isEmpty }, sourceLocation: sourceLocation)
        return client
    }

    /// sway's seat starts with no capabilities (no devices); each virtual device adds its own while
    /// the client is connected, and takes it away again when its driver disconnects.
    @Test func seatCapabilitiesFollowTheVirtualDevices() throws {
        let client = try freshClient()

        // Each driver in a scope of its own: releasing it disconnects, which removes its device.
        do {
            let keyboard = try VirtualInput(display: display, devices: .keyboard)
            try client.dispatch(until: { client.capabilities == .keyboard })
            #expect(client.keyboard != nil && client.pointer == nil)
            do {
                let pointer = try VirtualInput(display: display, devices: .pointer)
                try client.dispatch(until: { client.capabilities == [.pointer, .keyboard] })
                #expect(client.pointer != nil)
                withExtendedLifetime(pointer) {}
            }
            try client.dispatch(until: { client.capabilities == .keyboard })
            #expect(client.pointer == nil, "the client released its pointer when the capability went")
            withExtendedLifetime(keyboard) {}
        }
        try client.dispatch(until: { client.capabilities.isEmpty })
        #expect(client.keyboard == nil)
    }

    /// A click over the window: enter at the surface-local point (the tiled window fills the output
    /// from 0,0, so that is the point moved to), then the button pressed and released.
    @Test func clickArrivesAtTheSurfacePoint() throws {
        let client = try freshClient()
        try client.showWindow()
        let input = try VirtualInput(display: display, devices: .pointer)
        try client.dispatch(until: { client.pointer != nil })

        try input.move(to: 300, 200)
        try client.dispatch(until: { client.pointerLog.contains("frame") })
        #expect(client.pointerLog.first == "enter 300.0 200.0")
        #expect(client.pointerLog.last == "frame")
        client.clearEvents()

        try input.click(.left)
        try client.dispatch(until: { client.pointerLog.filter { $0 == "frame" }.count == 2 })
        #expect(client.pointerLog == ["button 272 pressed", "frame", "button 272 released", "frame"])

        client.clearEvents()
        try input.move(to: 301, 202)
        try input.click(.right)
        try client.dispatch(until: { client.pointerLog.filter { $0 == "frame" }.count == 3 })
        #expect(client.pointerLog == ["motion 301.0 202.0", "frame", "button 273 pressed", "frame", "button 273 released", "frame"])
    }

    /// A wheel click is axis_source, axis_discrete and axis in one frame; a finger scroll ends with
    /// axis_stop.
    @Test func scrollArrivesWithSourceStepsAndStop() throws {
        let client = try freshClient()
        try client.showWindow()
        let input = try VirtualInput(display: display, devices: .pointer)
        try client.dispatch(until: { client.pointer != nil })
        try input.move(to: 512, 384)
        try client.dispatch(until: { client.pointerLog.contains("frame") })
        client.clearEvents()

        try input.scroll(.verticalScroll, by: 15, steps: 1, source: .wheel)
        try client.dispatch(until: { client.pointerLog.contains("frame") })
        #expect(client.pointerLog == ["axis_source wheel", "axis_discrete vertical 1", "axis vertical 15.0", "frame"])
        client.clearEvents()

        try input.scroll(.horizontalScroll, by: -7.5, source: .finger)
        try input.stopScrolling(.horizontalScroll, source: .finger)
        try client.dispatch(until: { client.pointerLog.filter { $0 == "frame" }.count == 2 })
        #expect(client.pointerLog == [
            "axis_source finger", "axis horizontal -7.5", "frame",
            "axis_source finger", "axis_stop horizontal", "frame",
        ])
    }

    /// The new tiled window has keyboard focus; typing brings the driver's keymap, enter, and one
    /// press and release per character, with Shift as modifier state, which decode to the text.
    @Test func typingArrivesAsKeysOfTheKeymap() throws {
        let client = try freshClient()
        try client.showWindow()
        let input = try VirtualInput(display: display, devices: .keyboard)
        try client.dispatch(until: {
            client.keyboardEvents.contains { if case let .enter(_, surface, _) = $0 { surface === client.surface } else { false } }
        })
        let keymap = try #require(client.keymaps.last)
        #expect(keymap.contains("xkb_keymap"))
        #expect(client.keyboardEvents.first.map { if case .keymap(.xkbV1, _, _) = $0 { true } else { false } } == true)
        client.clearEvents()

        let text = "Hi, sway!"
        try input.type(text)
        let decoder = try KeyboardDecoder(keymap: keymap)
        var pressed: [UInt32] = []
        var handled = 0
        try client.dispatch(until: {
            for event in client.keyboardEvents.dropFirst(handled) {
                switch event {
                case let .modifiers(_, depressed, latched, locked, group):
                    decoder.modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
                case let .key(_, _, key, .pressed):
                    pressed.append(key)
                    decoder.press(key)
                default: break
                }
            }
            handled = client.keyboardEvents.count
            return decoder.text == text
        })
        #expect(decoder.text == text)
        // KEY_H, KEY_I, KEY_COMMA, KEY_SPACE, KEY_S, KEY_W, KEY_A, KEY_Y, KEY_1 (Shift is modifier state).
        #expect(pressed == [35, 23, 51, 57, 31, 17, 30, 21, 2])
        let releases = client.keyboardEvents.filter { if case .key(_, _, _, .released) = $0 { true } else { false } }
        #expect(releases.count == text.count)
    }

    /// grim sees the tiled window fill the output from 0,0 (no border, title bar, gap or bar): a
    /// marker drawn at 100,50 in the window is at 100,50 on the output.
    @Test func screenshotShowsTheWindowFillingTheOutput() throws {
        let client = try freshClient(marker: (x: 100, y: 50, side: 64, colour: 0xffff_cc00))
        try client.showWindow()
        let shot = try SwayScreenshot.capture(display: display, name: "input-window")
        #expect(shot.width == 1024 && shot.height == 768)
        for (x, y) in [(0, 0), (1023, 0), (0, 767), (1023, 767), (512, 384), (99, 50), (100, 49), (164, 113), (163, 114)] {
            #expect(shot.pixel(x: x, y: y) == client.colour, "pixel \(x),\(y)")
        }
        for (x, y) in [(100, 50), (163, 50), (100, 113), (163, 113)] {
            #expect(shot.pixel(x: x, y: y) == 0xffff_cc00, "marker pixel \(x),\(y)")
        }
    }
}
