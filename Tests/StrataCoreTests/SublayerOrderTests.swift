import CoreTestSupport
import StrataRender
import Testing
@testable import StrataCore

/// A removed sublayer only empties its slot until the next read closes the gaps, so a parent's
/// children can be taken away in any order in linear time (M15 measures the speed). These tests
/// hold the bookkeeping to a plain array model: after any sequence of changes, read at any moment,
/// the order is the one the calls describe.
@MainActor
struct SublayerOrderTests {
    /// Random inserts, moves and removals across two parents, with reads only now and then, so
    /// gaps pile up and are closed both by reads and by the half-full rule.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomChangesKeepTheOrderOfAnArray(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let parents = [Layer(), Layer()]
        let pool = (0..<120).map { _ in Layer() }
        var model: [[Int]] = [[], []]
        func position(_ item: Int) -> (parent: Int, index: Int)? {
            for parent in 0..<2 { if let index = model[parent].firstIndex(of: item) { return (parent, index) } }
            return nil
        }
        func detach(_ item: Int) {
            if let (parent, index) = position(item) { model[parent].remove(at: index) }
        }
        for step in 0..<4000 {
            let item = Int.random(in: 0..<pool.count, using: &random)
            let layer = pool[item]
            let target = Int.random(in: 0..<2, using: &random)
            let parent = parents[target]
            switch Int.random(in: 0..<7, using: &random) {
            case 0, 1:
                parent.addSublayer(layer)
                detach(item)
                model[target].append(item)
            case 2:
                let index = Int.random(in: -2...(model[target].count + 2), using: &random)
                parent.insertSublayer(layer, at: index)
                detach(item)
                model[target].insert(item, at: min(max(index, 0), model[target].count))
            case 3:
                let sibling = Int.random(in: 0..<pool.count, using: &random)
                guard sibling != item else { continue }
                parent.insertSublayer(layer, above: pool[sibling])
                detach(item)
                if let index = model[target].firstIndex(of: sibling) {
                    model[target].insert(item, at: index + 1)
                } else {
                    model[target].append(item)
                }
            case 4:
                let sibling = Int.random(in: 0..<pool.count, using: &random)
                guard sibling != item else { continue }
                parent.insertSublayer(layer, below: pool[sibling])
                detach(item)
                model[target].insert(item, at: model[target].firstIndex(of: sibling) ?? 0)
            case 5:
                guard layer.superlayer === parent else { continue }
                if Bool.random(using: &random) {
                    parent.bringSublayerToFront(layer)
                    detach(item)
                    model[target].append(item)
                } else {
                    parent.sendSublayerToBack(layer)
                    detach(item)
                    model[target].insert(item, at: 0)
                }
            default:
                layer.removeFromSuperlayer()
                detach(item)
            }
            if step.isMultiple(of: 97) || Int.random(in: 0..<10, using: &random) == 0 {
                for index in 0..<2 {
                    #expect(parents[index].sublayers.map { pool.firstIndex(of: $0)! } == model[index], "step \(step)")
                }
            }
        }
        for index in 0..<2 {
            #expect(parents[index].sublayers.map { pool.firstIndex(of: $0)! } == model[index])
            for layer in parents[index].sublayers { #expect(layer.superlayer === parents[index]) }
        }
    }

    /// Taking every child away, first to last, with no read in between, empties the parent; a
    /// removed child is freed at once, not when its old slot is next compacted.
    @Test func removedSublayersAreFreedAtOnceAndTheParentEmpties() {
        let parent = Layer()
        weak var first: Layer?
        do {
            let children = (0..<1000).map { _ in Layer() }
            for child in children { parent.addSublayer(child) }
            first = children[0]
            for child in children { child.removeFromSuperlayer() }
        }
        #expect(first == nil)
        #expect(parent.sublayers.isEmpty)
    }

    /// Moving the same sublayer to the top again and again, never reading, keeps the storage
    /// bounded: the gaps are closed once they are half of it.
    @Test func repeatedMovesWithoutReadsStayBounded() {
        let parent = Layer()
        let children = (0..<10).map { _ in Layer() }
        for child in children { parent.addSublayer(child) }
        for round in 0..<10_000 { parent.bringSublayerToFront(children[round % 3]) }
        #expect(parent.storedSublayerSlots <= 2 * children.count + 34)
        #expect(parent.sublayers.count == children.count)
    }
}

/// A move in z-order marks only the moved layer, yet every pixel its subtree covers is
/// repainted: here a sublayer that hangs outside its parent over a sibling comes to the front.
@MainActor
struct ReorderRepaintTests {
    /// Frames with a one-pixel change far away, until every buffer of the pool has been painted
    /// once: a buffer's first frame is painted whole, which would hide a damage that is too small.
    func warmBuffers(_ scene: HeadlessScene) throws {
        let dot = Layer()
        dot.frame = Rect(x: 58, y: 38, width: 1, height: 1)
        scene.root.addSublayer(dot)
        for shade in 0..<4 {
            dot.backgroundColor = Color(red: Double(shade) / 4, green: 0, blue: 0)
            try scene.settle()
        }
    }

    @Test func bringingASubtreeToTheFrontRepaintsWhereItsSublayersAre() throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let red = Layer(), hanging = Layer(), blue = Layer()
        red.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        red.backgroundColor = Color(red: 1, green: 0, blue: 0)
        hanging.frame = Rect(x: 25, y: 0, width: 20, height: 20)
        hanging.backgroundColor = Color(red: 0, green: 1, blue: 0)
        blue.frame = Rect(x: 22, y: 0, width: 30, height: 30)
        blue.backgroundColor = Color(red: 0, green: 0, blue: 1)
        red.addSublayer(hanging)
        scene.root.addSublayer(red)
        scene.root.addSublayer(blue)
        try scene.settle()
        #expect(scene.pixel(30, 5) == scene.pixel(50, 25), "blue covers the hanging sublayer")
        try warmBuffers(scene)
        scene.root.bringSublayerToFront(red)
        try scene.settle()
        #expect(scene.pixel(30, 5) != scene.pixel(50, 25), "the hanging sublayer now covers blue")
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// Marking the subtree is one flag, whose effect lasts one copy of the tree.
    @Test func hidingAParentRepaintsItsSublayersOnce() throws {
        let scene = HeadlessScene(width: 60, height: 40)
        let parent = Layer(), child = Layer()
        parent.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        child.frame = Rect(x: 20, y: 10, width: 20, height: 20)
        child.backgroundColor = Color(red: 0, green: 0.5, blue: 0)
        parent.addSublayer(child)
        scene.root.addSublayer(parent)
        try scene.settle()
        let white = scene.pixel(5, 35)
        #expect(scene.pixel(30, 20) != white)
        try warmBuffers(scene)
        parent.opacity = 0.5
        try scene.settle()
        scene.expectPresentedFrameIsCompleteRepaint()
        parent.isHidden = true
        try scene.settle()
        #expect(scene.pixel(30, 20) == white)
        scene.expectPresentedFrameIsCompleteRepaint()
    }
}

extension Array where Element == Layer {
    func firstIndex(of layer: Layer) -> Int? { firstIndex { $0 === layer } }
}
