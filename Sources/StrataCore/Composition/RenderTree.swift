import Glibc

/// An animation that has started, as the compose queue samples it.
struct StartedAnimation: Sendable {
    let driver: any PropertyAnimationDriver
    /// Its start, in nanoseconds of the host's animation clock.
    let beginTime: UInt64
}

/// One layer as the compose queue sees it: its model values, animations and contents, copied
/// on the main thread when the tree changes. Frames in which only animations move reuse the
/// same copy, so the main thread does nothing per layer for them: the compose queue samples the
/// animations and flattens the tree, as Core Animation's render server does.
struct RenderNode: Sendable {
    /// The layer's `renderID`: what the compose queue remembers it by between frames.
    let id: UInt64
    let model: LayerPresentation
    let animations: [StartedAnimation]
    let anchorPoint: Point
    let isHidden: Bool
    let clipsToBounds: Bool
    let shadow: Shadow?
    let contents: Bitmap?
    let fadingFrom: Bitmap?
    /// A group's placeholder, drawn instead of the layer and its subtree.
    let placeholder: Color?
    /// Whether the layer's drawing changed since the previous copy.
    let changed: Bool
    /// Whether the change shows in the whole subtree (an opacity, a clip, a move in z-order).
    let changedSubtree: Bool
    /// The index just past this node's subtree: the nodes are in tree order (pre-order).
    var subtreeEnd: Int

    /// The values on screen at `time`: the model, with each running animation's value.
    func presented(at time: UInt64) -> LayerPresentation {
        guard !animations.isEmpty else { return model }
        var values = model
        for animation in animations {
            _ = animation.driver.apply(at: AnimationTiming.elapsedSeconds(from: animation.beginTime, to: time), to: &values)
        }
        return values
    }
}

/// The layer tree copied for the compose queue, in tree order.
struct RenderTree: Sendable {
    var nodes: [RenderNode] = []

    /// Copies `root`'s tree, clearing each layer's changed flag when `consumingChanges` (a copy
    /// for a frame; not one for a test's full repaint). Animations not yet started are left
    /// out: `Layer.startPendingAnimations` starts them first. Iterative, so a tree of any depth
    /// is safe.
    @MainActor
    static func copy(_ root: Layer, capacity: Int, consumingChanges: Bool = true) -> RenderTree {
        var tree = RenderTree()
        tree.nodes.reserveCapacity(capacity)
        enum Step { case enter(Layer), exit(Int) }
        var stack: [Step] = [.enter(root)]
        while let step = stack.popLast() {
            switch step {
            case let .exit(index):
                tree.nodes[index].subtreeEnd = tree.nodes.count
            case let .enter(layer):
                let index = tree.nodes.count
                tree.nodes.append(layer.renderNode(consumingChanges: consumingChanges))
                stack.append(.exit(index))
                for sublayer in layer.sublayers.reversed() { stack.append(.enter(sublayer)) }
            }
        }
        return tree
    }
}

extension Layer {
    /// This layer as a render node, consuming its changed flag if asked.
    func renderNode(consumingChanges: Bool) -> RenderNode {
        let changed = composition.needsComposite || composition.subtreeNeedsComposite
        let changedSubtree = composition.subtreeNeedsComposite
        if consumingChanges {
            composition.needsComposite = false
            composition.subtreeNeedsComposite = false
        }
        var started: [StartedAnimation] = []
        if !animations.isEmpty {
            started.reserveCapacity(animations.count)
            for entry in animations {
                if case let .ready(driver) = entry.source, let beginTime = entry.beginTime {
                    started.append(StartedAnimation(driver: driver, beginTime: beginTime))
                }
            }
        }
        return RenderNode(id: renderID, model: modelValues, animations: started, anchorPoint: anchorPoint, isHidden: isHidden,
                          clipsToBounds: clipsToBounds, shadow: shadow, contents: contents, fadingFrom: fadingFromContents,
                          placeholder: groupPlaceholderColor, changed: changed, changedSubtree: changedSubtree, subtreeEnd: 0)
    }
}

extension LayerPresentation {
    /// The map from the layer's frame space ((0, 0) at its top-left corner) to its superlayer's
    /// bounds space: the position, and the transform about the anchor point.
    func frameTransform(anchorPoint: Point) -> AffineTransform {
        guard !transform.isIdentity else { return AffineTransform(translationX: position.x, y: position.y) }
        let anchor = Point(x: anchorPoint.x * bounds.width, y: anchorPoint.y * bounds.height)
        let (cos, sin) = (Glibc.cos(transform.rotation), Glibc.sin(transform.rotation))
        let a = cos * transform.scaleX, b = sin * transform.scaleX
        let c = -sin * transform.scaleY, d = cos * transform.scaleY
        // p = position + anchor + translation + M·(f − anchor)
        let tx = position.x + anchor.x + transform.translation.x - (a * anchor.x + c * anchor.y)
        let ty = position.y + anchor.y + transform.translation.y - (b * anchor.x + d * anchor.y)
        return AffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
    }
}
