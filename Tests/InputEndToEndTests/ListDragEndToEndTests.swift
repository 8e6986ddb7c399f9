import Testing
import WaylandTestSupport

/// A drag that starts on a button in a list cell, through sway's seat: the list scrolls and the
/// button is not pressed. The feed's button mode lets a mouse drag scroll its list as a finger
/// does, since sway offers a virtual pointer but no virtual touch device.
extension InputEndToEnd {
    @Test func aPointerDragThatStartsOnAButtonInAListScrollsItAndDoesNotPressTheButton() throws {
        // Devices first: the window gets the pointer focus when it maps on a seat that has one.
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("feed", display: display, environment: "STRATA_FEED_BUTTONS=1")
        let layout = try process.waitForLine { $0.hasPrefix("feed: layout row=") }
        let row = try #require(layout.split(separator: " ").first { $0.hasPrefix("row=") }.flatMap { Int($0.dropFirst(4)) })
        let button = try Part.parse("button", in: layout)
        let (x, y) = button.centre
        #expect(y >= 300, "the middle row's button leaves room to drag 250 points up: \(layout)")

        // A click without moving presses the button.
        try input.move(to: x, y)
        try input.click()
        try process.waitForLine { $0 == "feed: opened \(row)" }

        // The same button pressed again and dragged 250 points up, in steps as a hand moves.
        try input.press()
        for step in 1...10 { try input.move(to: x, y - UInt32(step * 25)) }
        try input.release()
        let released = try process.waitForLine { $0.hasPrefix("feed: list released at ") }
        // The content followed the pointer from where it pressed: 250 points.
        #expect(released == "feed: list released at 250", "the list took the drag over and scrolled with it")
        let lines = process.lines
        let press = try #require(lines.lastIndex(of: "feed: pressed \(row)"))
        let after = lines[press...]
        #expect(after.contains("feed: cancelled \(row)"), "the button's press was cancelled when the list took it")
        #expect(!after.contains("feed: opened \(row)"), "the drag fired the button: \(lines)")
        #expect(lines.filter { $0.hasPrefix("feed: opened") }.count == 1)
    }
}

/// A carousel inside a list, through sway's seat: a sideways drag scrolls the carousel and not
/// the list around it, and a vertical drag that starts on the carousel scrolls the list.
extension InputEndToEnd {
    @Test func aSidewaysDragScrollsACarouselInsideAListAndAVerticalOneTheList() throws {
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("feed", display: display, environment: "STRATA_FEED_BUTTONS=1")
        let layout = try process.waitForLine { $0.hasPrefix("feed: layout row=") }
        let carousel = try Part.parse("carousel", in: layout)
        let (x, y) = carousel.centre
        #expect(carousel.width > 400, "the carousel spans the window: \(layout)")

        // 300 points to the left, from the middle of the carousel.
        try input.move(to: x + 150, y)
        try input.press()
        for step in 1...10 { try input.move(to: x + 150 - UInt32(step * 30), y) }
        try input.release()
        let sideways = try process.waitForLine { $0.hasPrefix("feed: carousel released at ") }
        #expect(sideways == "feed: carousel released at 300", "the carousel followed the pointer sideways")
        #expect(!process.lines.contains { $0.hasPrefix("feed: list released at ") }, "the list did not move")

        // 100 points up, from the carousel: the list takes it.
        try input.move(to: x, y + 20)
        try input.press()
        for step in 1...10 { try input.move(to: x, y + 20 - UInt32(step * 10)) }
        try input.release()
        let vertical = try process.waitForLine { $0.hasPrefix("feed: list released at ") }
        #expect(vertical == "feed: list released at 100", "the list followed the pointer up")
        #expect(process.lines.filter { $0.hasPrefix("feed: carousel released at ") }.count == 1)
    }
}
