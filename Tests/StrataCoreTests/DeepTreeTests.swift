import CoreTestSupport
@testable import StrataCore
import Testing

/// Counts the events a layer receives.
@MainActor
private final class Receiver: Layer {
    var presses = 0
    var entered = 0
    override func pointerPressed(_ event: PointerEvent) -> Bool {
        presses += 1
        return true
    }
    override func pointerEntered(_ event: PointerEvent) { entered += 1 }
    override var acceptsFocus: Bool { true }
}

/// A tree 100 000 deep is built, ticked, composed, hit-tested, given input, removed and freed
/// with no recursion (which overflowed the stack at a few thousand) and in linear time (building
/// cost the square of the depth: 3000 deep took a second).
@MainActor
struct DeepTreeTests {
    static let depth = 100_000

    @Test func aLayerJoiningADeepTreeDoesNotWalkUpItForItsTheme() {
        let scene = HeadlessScene(width: 40, height: 40)
        var tip: Layer = scene.root
        for _ in 0..<1000 {
            let layer = Layer()
            tip.addSublayer(layer)
            tip = layer
        }
        Layer.themeLookupSteps = 0
        tip.addSublayer(Layer())
        #expect(Layer.themeLookupSteps < 10, "\(Layer.themeLookupSteps) layers visited for one join")
    }

    @Test func aTreeBuiltTopDownUnderAHost() throws {
        let scene = HeadlessScene(width: 40, height: 40)
        var tip: Layer = scene.root
        var chain: [Layer] = []
        chain.reserveCapacity(Self.depth)
        for _ in 0..<Self.depth {
            let layer = Layer()
            layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
            tip.addSublayer(layer)
            chain.append(layer)
            tip = layer
        }
        let receiver = Receiver()
        receiver.frame = Rect(x: 0, y: 0, width: 20, height: 20)
        receiver.backgroundColor = .red
        tip.addSublayer(receiver)
        #expect(receiver.host === scene.host)
        #expect(receiver.isDescendant(of: scene.root))
        #expect(!scene.root.isDescendant(of: receiver))
        // A cycle is refused.
        receiver.addSublayer(chain[0])
        #expect(chain[0].superlayer === scene.root)
        // A host's root cannot be moved under a layer (its host would lose track of it).
        let other = HeadlessScene()
        receiver.addSublayer(other.root)
        #expect(other.root.superlayer == nil && other.root.host === other.host)

        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.red.premultipliedARGB)
        #expect(scene.pixel(30, 30) == Color.white.premultipliedARGB)

        #expect(scene.root.hitTest(Point(x: 5, y: 5)) === receiver)
        #expect(scene.root.hitTest(Point(x: 30, y: 30)) === tip)
        scene.host.input.post(.pointerEntered(Point(x: 5, y: 5)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        #expect(receiver.presses == 1 && receiver.entered == 1)
        #expect(receiver.isFocused)
        scene.host.input.moveFocus(forward: true)
        #expect(receiver.convertToHost(Point(x: 1, y: 1)) == Point(x: 1, y: 1))

        chain[0].removeFromSuperlayer()
        #expect(receiver.host == nil)
        #expect(!receiver.isFocused)
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.white.premultipliedARGB)
        // Freed here, layer by layer, without recursion.
        chain = []
        tip = scene.root
    }

    @Test func aTreeBuiltBottomUpThenAttachedAndDropped() throws {
        let scene = HeadlessScene(width: 40, height: 40)
        var top = solidLayer(.blue, Rect(x: 0, y: 0, width: 10, height: 10))
        let bottom = top
        for _ in 0..<Self.depth {
            let parent = Layer()
            parent.frame = Rect(x: 0, y: 0, width: 40, height: 40)
            parent.addSublayer(top)
            top = parent
        }
        #expect(bottom.host == nil)
        scene.root.addSublayer(top)
        #expect(bottom.host === scene.host)
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.blue.premultipliedARGB)
        top.removeFromSuperlayer()
        #expect(bottom.host == nil)
        // The only references to the chain go: it is freed without recursion.
        top = Layer()
        try scene.settle()
        #expect(scene.pixel(5, 5) == Color.white.premultipliedARGB)
    }
}
