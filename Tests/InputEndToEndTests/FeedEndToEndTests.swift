import Testing
import WaylandTestSupport

/// The README's demo under sway, driven through the seat: wheel notches from a virtual pointer
/// scroll the feed, and a click likes the post under the pointer (the app reports both).
extension InputEndToEnd {
    @Test func theWheelScrollsTheFeedAndAClickLikesThePostUnderThePointer() throws {
        // Devices first: the window gets the pointer focus when it maps on a seat that has one.
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("feed", display: display)
        try process.waitForLine { $0 == "feed: ready" }
        // The first post is at the top of the list, under the 52-point compose bar (sway tiles the
        // window to fill the output, at 0,0, and decorates it itself).
        try input.move(to: 500, 130)
        try input.click()
        try process.waitForLine { $0 == "feed: liked 0" }
        try input.click()
        try process.waitForLine { $0 == "feed: unliked 0" }

        // Twelve wheel notches down: the GTK rule moves about 84 points a notch on a 768-point
        // list, some 1 000 points in all, past the first few posts.
        for _ in 0..<12 { try input.scroll(.verticalScroll, by: 15, steps: 1, source: .wheel) }
        // A notch moves the list at once (no animation), and the seat delivers events in order,
        // so the click lands on the scrolled list.
        try input.click()
        // Lines are searched from the start; a list that did not scroll would like post 0 again,
        // and this would time out showing it.
        let line = try process.waitForLine { $0.hasPrefix("feed: liked ") && $0 != "feed: liked 0" }
        let item = try #require(Int(line.dropFirst("feed: liked ".count)))
        #expect(item >= 4, "the post under the pointer after scrolling ~1 000 points is not among the first four")
    }

    @Test func theComposeBarPostsAtTheTop() throws {
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("feed", display: display)
        try process.waitForLine { $0 == "feed: ready" }
        // Like the first post, then write one above it.
        try input.move(to: 500, 130)
        try input.click()
        try process.waitForLine { $0 == "feed: liked 0" }
        try input.move(to: 200, 26)
        try input.click()
        try input.type("Hello feed")
        try input.tap(28)  // Return
        try process.waitForLine { $0 == "feed: posted Hello feed" }
        // The new post is first; the liked one is second now, and still liked, so clicking it
        // unlikes it. The new post is 80 points high once measured (one line: the floor) and 140
        // until then (the estimate), so the second post starts at 132 or 192, and is at least 80
        // high: y 200 is in it either way.
        try input.move(to: 500, 200)
        try input.click()
        try process.waitForLine { $0 == "feed: unliked 1" }
    }
}
