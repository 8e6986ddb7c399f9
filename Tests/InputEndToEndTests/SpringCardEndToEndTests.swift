import Testing
import StrataRender
import WaylandTestSupport

/// strata-demo's spring card under sway, driven through the seat: it follows the virtual pointer
/// on a spring, seen in screenshots on its way and at rest under the pointer, and grows while
/// the button is held, all at composition.
extension InputEndToEnd {
    /// The card's pixels (its purple gradient) below the demo's top rows, where the only other
    /// purple (the third equaliser) cannot be: how many, and their centre.
    private static func card(in shot: Bitmap, below top: Int) -> (count: Int, x: Double, y: Double) {
        var count = 0, sumX = 0, sumY = 0
        for y in max(top, 0)..<shot.height {
            for x in 0..<shot.width {
                let pixel = shot.pixel(x: x, y: y)
                let red = Int(pixel >> 16 & 0xFF), green = Int(pixel >> 8 & 0xFF), blue = Int(pixel & 0xFF)
                guard blue > 180, green < 110, red > 70, red < 200 else { continue }
                count += 1
                sumX += x
                sumY += y
            }
        }
        return count == 0 ? (0, 0, 0) : (count, Double(sumX) / Double(count), Double(sumY) / Double(count))
    }

    /// Moves the pointer to `target` and screenshots until the card rests centred under it (two
    /// screenshots in a row see it in the same place: a card passing through the target on its
    /// spring's overshoot sits at a fraction of a pixel, with other edge pixels); returns where
    /// each screenshot saw it on the way, and the card's size at rest in pixels.
    private func follow(to target: (x: Double, y: Double), with input: VirtualInput, below top: Int,
                        name: String) throws -> (path: [(x: Double, y: Double)], size: Int) {
        // Two moves, so the stage sees motion even if the first one is the pointer's entry.
        try input.move(to: UInt32(target.x) + 1, UInt32(target.y))
        try input.move(to: UInt32(target.x), UInt32(target.y))
        var path: [(x: Double, y: Double)] = []
        var last: (count: Int, x: Double, y: Double)?
        _ = try screen(until: { shot in
            let card = Self.card(in: shot, below: top)
            path.append((card.x, card.y))
            defer { last = card }
            return card.count > 3000 && abs(card.x - target.x) < 3 && abs(card.y - target.y) < 3
                && last.map { $0.count == card.count && $0.x == card.x && $0.y == card.y } == true
        }, name: name)
        return (path, last?.count ?? 0)
    }

    /// Every place the demo reported composing the card, after reading all it has written.
    private static func cardReports(of process: ExampleProcess) throws -> [(x: Double, y: Double)] {
        var count = -1
        while process.lines.count != count {
            count = process.lines.count
            try process.read()
        }
        return process.lines.compactMap { line in
            guard line.hasPrefix("strata-demo: card ") else { return nil }
            let numbers = line.dropFirst("strata-demo: card ".count).split(separator: ",").compactMap { Double($0) }
            return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
        }
    }

    @Test func theSpringCardFollowsThePointerAndGrowsWhilePressed() throws {
        let input = try VirtualInput(display: display)
        let process = try ExampleProcess("strata-demo", display: display, environment: "STRATA_DEMO_REPORT_CARD=1")
        let stage = try Part.parse("stage", in: try process.waitForLine { $0.hasPrefix("strata-demo: layout ") })
        // Below the equalisers, the text card and the graph (the stage's top 380 points).
        let top = Int(stage.y) + 380
        let first = (x: stage.x + 800, y: stage.y + 560), second = (x: stage.x + 250, y: stage.y + 480)
        let rest = try follow(to: first, with: input, below: top, name: "spring-card-first")
        let before = try Self.cardReports(of: process).count
        let (_, size) = try follow(to: second, with: input, below: top, name: "spring-card-second")
        // A card that jumped would never be composed between the two places: the demo says where
        // it composed it each frame, in its surface's points (screenshots alone can miss the
        // flight on a loaded machine).
        let reports = try Self.cardReports(of: process)
        let from = try #require(reports.prefix(before).last), path = reports.dropFirst(before), to = try #require(path.last)
        #expect(abs(abs(to.x - from.x) - abs(second.x - first.x)) < 3, "it travelled as far as the pointer: \(from) to \(to)")
        #expect(path.contains { abs($0.x - from.x) > 20 && abs($0.x - to.x) > 20 },
                "composed on its way: \(path.map { "\(Int($0.x)),\(Int($0.y))" })")
        #expect(abs(Double(size - rest.size)) < Double(rest.size) * 0.05, "the same card at rest: \(size) against \(rest.size)")

        // Pressed, it grows to 1.15× (1.32× the pixels) and tilts; released, it comes back.
        try input.press()
        _ = try screen(until: { Double(Self.card(in: $0, below: top).count) > Double(size) * 1.25 }, name: "spring-card-pressed")
        try input.release()
        _ = try screen(until: { abs(Double(Self.card(in: $0, below: top).count - size)) < Double(size) * 0.02 },
                       name: "spring-card-released")
    }
}
