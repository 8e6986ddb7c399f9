/// A node of the layer tree: a rectangle with drawing properties, contents and sublayers.
///
/// Setting a property draws nothing. It records what changed and asks the tree's `LayerHost`
/// for a frame tick, which lays out, displays and composes everything that changed at once.
/// Sublayers draw over their superlayer, in array order (last on top).
///
/// Main actor only.
@MainActor
open class Layer {
    /// A layer with no frame, no contents and no sublayers.
    public init() {
        Self.lastRenderID &+= 1
        renderID = Self.lastRenderID
    }

    /// Names the layer to the compose queue, which remembers where each layer was between
    /// frames; unlike an object address, never reused.
    let renderID: UInt64
    private static var lastRenderID: UInt64 = 0

    /// Frees a subtree of any depth without recursion: each sublayer about to go is emptied
    /// first, so releasing it cannot release its own sublayers from inside this deinit, one
    /// stack frame per level. Nonisolated, so subclasses keep plain deinits; it touches only
    /// layers nothing else holds.
    deinit {
        var doomed = sublayerStorage
        sublayerStorage = []
        while var layer = doomed.popLast() {
            // A sublayer someone else still holds lives on with its subtree.
            guard isKnownUniquelyReferenced(&layer) else { continue }
            doomed.append(contentsOf: layer.sublayerStorage)
            layer.sublayerStorage = []
        }
    }

    // MARK: Geometry

    /// The layer's rectangle in its superlayer's coordinate space.
    public var frame: Rect {
        get { Rect(origin: position, size: bounds.size) }
        set {
            let old = frame
            let sizeChanged = newValue.size != bounds.size
            guard newValue.origin != position || sizeChanged else { return }
            position = newValue.origin
            // Through storage, so the bounds' observer neither lays out nor animates twice.
            boundsStorage.size = newValue.size
            if sizeChanged { boundsSizeChanged() }
            setNeedsComposite()
            implicitChange(.position, from: old.origin, to: newValue.origin)
            implicitChange(.size, from: old.size, to: newValue.size)
        }
    }

    /// The layer's own coordinate space: `size` equals the frame's, and `origin` is the point that
    /// appears at the frame's top-left corner, so changing it scrolls the sublayers.
    public var bounds: Rect {
        get { boundsStorage }
        set {
            let old = boundsStorage
            guard newValue != old else { return }
            boundsStorage = newValue
            if newValue.size != old.size { boundsSizeChanged() }
            setNeedsComposite()
            implicitChange(.boundsOrigin, from: old.origin, to: newValue.origin)
            implicitChange(.size, from: old.size, to: newValue.size)
        }
    }

    private var boundsStorage = Rect.zero
    private var position = Point.zero

    /// Scales, rotates and moves the layer and its subtree about `anchorPoint`, at composition:
    /// its contents are not drawn again. Hit-testing follows it. A transform that is not finite
    /// hides the layer.
    public var transform = LayerTransform.identity {
        didSet {
            guard transform != oldValue else { return }
            setNeedsCompositeInSubtree()
            implicitChange(.transform, from: oldValue, to: transform)
        }
    }

    /// The point of the bounds that `transform` scales and rotates about, in unit coordinates:
    /// (0, 0) is the top-left corner, (0.5, 0.5), the default, the centre.
    public var anchorPoint = Point(x: 0.5, y: 0.5) {
        didSet { if anchorPoint != oldValue, !transform.isIdentity { setNeedsCompositeInSubtree() } }
    }

    /// Called when the size changes: lays out the sublayers again.
    open func boundsSizeChanged() { setNeedsLayout() }

    // MARK: Drawing properties

    /// Hides the layer and its subtree; hidden layers still lay out and display.
    public var isHidden = false {
        didSet {
            guard isHidden != oldValue else { return }
            setNeedsComposite()
            if let superlayer { host?.accessibilityStructureChanged(superlayer) }
        }
    }
    /// Multiplies the alpha of the layer and its sublayers (each is blended on its own; there is
    /// no offscreen group).
    public var opacity: Double = 1 {
        didSet {
            guard opacity != oldValue else { return }
            setNeedsCompositeInSubtree()
            implicitChange(.opacity, from: oldValue, to: opacity)
        }
    }
    /// Clips the contents and the sublayers to the frame, rounded by `cornerRadius`, as Core
    /// Animation's `masksToBounds` does. Under a rotation or skew, sublayers are clipped to the
    /// frame's bounding box, without rounding. Hit-testing follows the rectangle.
    public var clipsToBounds = false { didSet { if clipsToBounds != oldValue { setNeedsCompositeInSubtree() } } }
    /// Fills the frame (rounded by `cornerRadius`) below the contents.
    public var backgroundColor: Color? {
        didSet {
            guard backgroundColor != oldValue else { return }
            setNeedsComposite()
            implicitChange(.backgroundColor, from: oldValue ?? .clear, to: backgroundColor ?? .clear)
        }
    }
    /// Rounds the background, the border, and, when `clipsToBounds` is set, the contents and the
    /// sublayers' clip.
    public var cornerRadius: Double = 0 {
        didSet {
            guard cornerRadius != oldValue else { return }
            setNeedsComposite()
            implicitChange(.cornerRadius, from: oldValue, to: cornerRadius)
        }
    }
    /// A border drawn inside the frame, over the contents.
    public var borderWidth: Double = 0 {
        didSet {
            guard borderWidth != oldValue else { return }
            setNeedsComposite()
            implicitChange(.borderWidth, from: oldValue, to: borderWidth)
        }
    }
    /// The border's colour; no border is drawn while it is nil.
    public var borderColor: Color? {
        didSet {
            guard borderColor != oldValue else { return }
            setNeedsComposite()
            implicitChange(.borderColor, from: oldValue ?? .clear, to: borderColor ?? .clear)
        }
    }

    /// A shadow cast by the frame, rounded by `cornerRadius`, drawn below the background. It
    /// follows the frame's shape, not the contents' pixels (as Core Animation does with a
    /// `shadowPath` of the bounds), so it is blurred once, kept, and only composited: moving,
    /// fading or re-rendering the layer never blurs it again. An ancestor's `clipsToBounds` cuts
    /// it; the layer's own does not, unlike Core Animation, so a menu can clip its rows to its
    /// rounded corners and still cast a shadow.
    public var shadow: Shadow? { didSet { if shadow != oldValue { setNeedsComposite() } } }

    // MARK: Animation state

    /// The running animations, in the order they were added (later ones win on a property).
    var animations: [RunningAnimation] = []
    /// The contents being faded out under `contents` while the presentation's `contentsFade` runs.
    var fadingFromContents: Bitmap?
    /// Set while `animate(_:to:with:)` sets the model, so the setter does not animate it again.
    var isApplyingAnimatedModel = false
    /// The innermost `Layer.animate(with:_:)` block running, if any.
    static var implicitAnimationContext: ImplicitAnimationContext?

    /// A size animation ended. `AsyncLayer` renders at the final size then, having shown its old
    /// contents stretched meanwhile. The default does nothing.
    open func sizeAnimationEnded() {}
    /// An animation moved the size on screen this frame. The default does nothing.
    open func presentedSizeChanged() {}

    /// The layer's rendered pixels, drawn scaled into the frame over the background. An
    /// `AsyncLayer` sets it from its display task; a plain layer shows whatever it is given.
    /// Never changed in place once set: composition may be reading it on another thread.
    public var contents: Bitmap? {
        didSet { if contents !== oldValue { setNeedsComposite() } }
    }

    // MARK: Group commit

    /// Non-nil marks this layer's subtree as a group. Setting nil commits anything staged at once.
    ///
    /// The new contents of the group's async layers become visible in one frame, once every render
    /// has finished or the timeout passed; until then the group shows its previous contents, or
    /// its placeholder after `showPlaceholderUntilGroupCommits()`. An `AsyncLayer` belongs to its
    /// nearest ancestor (or itself) with a `groupCommit`, as it was when its render started.
    public var groupCommit: GroupCommit? {
        didSet { if groupCommit != oldValue { groupCommitChanged(from: oldValue) } }
    }

    /// Called on the main thread each time the group's held contents become visible together
    /// (argument: whether it committed complete (true) or because of the timeout (false)).
    public var onGroupCommit: ((Layer, _ complete: Bool) -> Void)?

    /// What the group waits for and holds back, while `groupCommit` is set.
    var groupState: GroupCommitState?

    // MARK: Tree

    /// The layer this one is a sublayer of.
    public private(set) weak var superlayer: Layer?
    /// The sublayers, bottom first.
    public var sublayers: [Layer] {
        compactSublayers()
        return sublayerStorage
    }
    /// The sublayers in the order a reader meets them, which Tab and assistive technologies
    /// follow: `sublayers`, the drawing order, unless a subclass knows better, as a scroll
    /// view's content does (its list cells are in the tree in the order they were made).
    /// Hidden sublayers may be left out: neither reads them.
    open var sublayersInReadingOrder: [Layer] { sublayers }
    /// The sublayers in order, with `Layer.vacated` in the slots of those removed since the last
    /// compaction. Removing a sublayer only empties its slot, so a parent's children can be taken
    /// away in any order at a constant cost each; the next read of `sublayers` closes the gaps.
    /// Main actor only, except in `deinit`, which only runs once nothing else holds the layer.
    private nonisolated(unsafe) var sublayerStorage: [Layer] = []
    /// How many slots of `sublayerStorage` hold `Layer.vacated`.
    private var vacatedSlots = 0
    /// Where this layer is in its superlayer's `sublayerStorage`; kept exact by every change.
    private var slotInSuperlayer = 0
    /// Fills the slot of a removed sublayer until the next compaction.
    private static let vacated = Layer()

    /// How many slots the sublayers take, gaps included, for the tests of the half-full rule.
    var storedSublayerSlots: Int { sublayerStorage.count }

    /// Closes the gaps left by removed sublayers, renumbering the slots of those that stay.
    private func compactSublayers() {
        guard vacatedSlots > 0 else { return }
        sublayerStorage.removeAll { $0 === Layer.vacated }
        vacatedSlots = 0
        for (slot, layer) in sublayerStorage.enumerated() { layer.slotInSuperlayer = slot }
    }

    /// Empties `layer`'s slot. The gaps are closed once they are half the array, so a parent that
    /// is changed often but never read holds at most twice its sublayers.
    private func vacateSlot(of layer: Layer) {
        assert(sublayerStorage[layer.slotInSuperlayer] === layer, "a sublayer's slot is stale")
        sublayerStorage[layer.slotInSuperlayer] = Layer.vacated
        vacatedSlots += 1
        if vacatedSlots > 32, vacatedSlots * 2 > sublayerStorage.count { compactSublayers() }
    }

    /// Adds `layer` above all sublayers, moving it from any other parent.
    public func addSublayer(_ layer: Layer) {
        insertSublayer(layer, at: Int.max)
    }

    /// Inserts `layer` at `index` (clamped to the valid range), moving it from any other parent.
    /// Adding a layer inside itself (or inside its own subtree) does nothing: a tree has no cycles.
    /// Adding a host's `rootLayer` does nothing either.
    ///
    /// Costs the smaller of this layer's depth and the size of `layer`'s subtree (the cycle
    /// check), plus that subtree's size when it joins a host, plus the number of sublayers above
    /// `index`: adding on top, or moving a sublayer to the top, takes constant time, so building
    /// a tree of any shape, top down or bottom up, is linear.
    public func insertSublayer(_ layer: Layer, at index: Int) {
        if layer.superlayer === self { return moveSublayer(layer, to: index) }
        // A host's root stays the root: its host sizes it and ticks its tree.
        guard layer.rootHost == nil, !isDescendant(of: layer) else { return }
        layer.removeFromSuperlayer()
        place(layer, at: index)
        layer.superlayer = self
        layer.attached(to: host)
        host?.accessibilityStructureChanged(self)
    }

    /// Moves a sublayer to `index` among its siblings. It stays in the same tree, so nothing is
    /// walked: the composer repaints where its subtree is from one mark.
    private func moveSublayer(_ layer: Layer, to index: Int) {
        let count = sublayerStorage.count - vacatedSlots
        let index = min(max(index, 0), count - 1)
        // Without compacting: moving every sublayer in turn must not cost the square.
        let inPlace = vacatedSlots == 0 ? layer.slotInSuperlayer == index : index == count - 1 && sublayerStorage.last === layer
        if inPlace { return }
        vacateSlot(of: layer)
        place(layer, at: index)
        layer.setNeedsCompositeInSubtree()
        host?.accessibilityStructureChanged(self)
    }

    /// Puts `layer` at `index` of the sublayers without its slot: at the top in constant time,
    /// elsewhere by shifting the sublayers above.
    private func place(_ layer: Layer, at index: Int) {
        let count = sublayerStorage.count - vacatedSlots
        let index = min(max(index, 0), count)
        if index == count {
            layer.slotInSuperlayer = sublayerStorage.count
            sublayerStorage.append(layer)
        } else {
            compactSublayers()
            sublayerStorage.insert(layer, at: index)
            for slot in index..<sublayerStorage.count { sublayerStorage[slot].slotInSuperlayer = slot }
        }
    }

    /// Where `sublayer` is among the sublayers, or nil when it is not one of them.
    private func index(of sublayer: Layer) -> Int? {
        guard sublayer.superlayer === self else { return nil }
        compactSublayers()
        return sublayer.slotInSuperlayer
    }

    /// Inserts `layer` just above `sibling`, or on top when `sibling` is not a sublayer.
    public func insertSublayer(_ layer: Layer, above sibling: Layer) {
        guard let index = index(of: sibling) else { return addSublayer(layer) }
        let adjust = self.index(of: layer).map { $0 < index ? 0 : 1 } ?? 1
        insertSublayer(layer, at: index + adjust)
    }

    /// Inserts `layer` just below `sibling`, or at the bottom when `sibling` is not a sublayer.
    public func insertSublayer(_ layer: Layer, below sibling: Layer) {
        guard let index = index(of: sibling) else { return insertSublayer(layer, at: 0) }
        let adjust = self.index(of: layer).map { $0 < index ? -1 : 0 } ?? 0
        insertSublayer(layer, at: index + adjust)
    }

    /// Moves a sublayer above all its siblings.
    public func bringSublayerToFront(_ layer: Layer) {
        guard layer.superlayer === self else { return }
        insertSublayer(layer, at: Int.max)
    }

    /// Moves a sublayer below all its siblings.
    public func sendSublayerToBack(_ layer: Layer) {
        guard layer.superlayer === self else { return }
        insertSublayer(layer, at: 0)
    }

    /// Detaches the layer (and its subtree) from its parent; where it was shown is repainted.
    /// Costs constant time plus, when the tree is shown, the size of the subtree.
    public func removeFromSuperlayer() {
        guard let parent = superlayer else { return }
        let host = self.host
        parent.vacateSlot(of: self)
        superlayer = nil
        if let host {
            forEachLayer(in: self) { layer in
                if layer.groupState != nil {
                    layer.abandonGroup()
                    host.groupLeft(layer)
                }
                layer.currentHost = nil
            }
        }
        host?.layerRemoved(self)
        host?.accessibilityStructureChanged(parent)
        if let host { forEachLayer(in: self) { $0.didLeave(host) } }
    }

    /// Whether `layer` is this layer or one of its ancestors.
    ///
    /// Walks up from this layer and down `layer`'s subtree in step, so it costs the smaller of
    /// the two: adding a leaf to a deep tree, or a deep subtree to a new parent, is cheap.
    public func isDescendant(of layer: Layer) -> Bool {
        var up: Layer? = self
        var down: [Layer] = [layer]
        while true {
            guard let ancestor = up else { return false }
            if ancestor === layer { return true }
            up = ancestor.superlayer
            guard let below = down.popLast() else { return false }
            if below === self { return true }
            down.append(contentsOf: below.sublayers)
        }
    }

    // MARK: Invalidation

    /// Whether the layer waits for `display()` at the next tick.
    public private(set) var needsDisplay = false
    /// Whether the layer waits for `layoutSublayers()` at the next tick.
    public private(set) var needsLayout = false

    /// Asks for new contents at the next tick.
    open func setNeedsDisplay() {
        needsDisplay = true
        host?.displayNeeded()
    }

    /// Asks for `layoutSublayers()` at the next tick; a spec is solved again then, even if
    /// frames were adopted for this size.
    public func setNeedsLayout() {
        adoptedFrames = nil
        needsLayout = true
        host?.layoutNeeded()
    }

    /// Lays out now if a layout is pending, so sizes can be read back at once.
    public func layoutIfNeeded() {
        guard needsLayout else { return }
        needsLayout = false
        layoutSublayers()
    }

    /// Positions the sublayers. Runs on the main thread during a tick, after transactions and
    /// before display. The default applies `layoutSpec()` when there is one, then calls
    /// `layoutHandler`.
    open func layoutSublayers() {
        isLaidOutBySpec = applyLayoutSpec()
        layoutHandler?(self)
    }

    /// Lays out the sublayers of a plain layer without subclassing; with a `layoutSpec()`, runs
    /// after the spec's frames are set, for whatever the spec does not place.
    public var layoutHandler: ((Layer) -> Void)?

    /// Whether the last layout of the sublayers applied a spec, so a change in a sublayer's
    /// measured size must lay them out again.
    var isLaidOutBySpec = false
    /// Frames solved elsewhere (`adopt(_:)`), in use while the size is theirs and nothing asked
    /// for a new layout: the spec is then neither built nor solved again.
    var adoptedFrames: SublayerFrames?

    // MARK: Measuring and layout specs (Layer+Layout.swift)

    /// How the sublayers are laid out, as a spec whose items name them (`LayoutSpec.layer(_:)`),
    /// or nil to lay them out some other way. The default returns `layoutSpecHandler`'s spec.
    ///
    /// When there is a spec, `layoutSublayers()` solves it for exactly the layer's size and sets
    /// every named sublayer's frame in one pass, and `measurer()` measures the layer by it.
    open func layoutSpec() -> LayoutSpec? { layoutSpecHandler?(self) }

    /// Gives a plain layer a layout spec without subclassing.
    public var layoutSpecHandler: ((Layer) -> LayoutSpec)? { didSet { setNeedsLayout() } }

    /// Measures the layer on any thread: a function that returns the size the layer's content
    /// takes within a size range, made now from a snapshot of what the layer shows (text, image,
    /// spec), so later changes to the layer do not reach it.
    ///
    /// Override it to give a layer a size of its own, capturing values, never the layer:
    ///
    /// ```swift
    /// override func measurer() -> LayoutMeasurer {
    ///     let rows = Double(values.count)
    ///     return { range in Size(width: range.max.width, height: rows * 20) }
    /// }
    /// ```
    ///
    /// The default measures `layoutSpec()` when there is one; a layer with neither takes the
    /// range's minimum size.
    open func measurer() -> LayoutMeasurer { specMeasurer() }

    /// The device scale a layer in no tree measures for, such as a stand-in cell a list
    /// configures to measure items before their cells exist; in a tree the host's scale counts.
    public var detachedScale: Double? {
        didSet { if let scale = detachedScale, !(scale.isFinite && scale > 0) { detachedScale = nil } }
    }

    /// The scale text and images measure for: the host's, or else the nearest `detachedScale`
    /// of this layer or an ancestor, or 1.
    public var measuringScale: Double {
        if let host { return host.scale }
        var layer: Layer? = self
        while let current = layer {
            if let scale = current.detachedScale { return scale }
            layer = current.superlayer
        }
        return 1
    }

    /// Says that what `measurer()` would measure has changed (new text, a new image): the
    /// superlayer lays out again if a spec placed this layer, and so on up while each layer's
    /// own size came from its superlayer's spec. Widgets call it themselves; a layer that
    /// overrides `measurer()` calls it when its content changes.
    public func invalidateMeasurement() {
        var layer = self
        while let parent = layer.superlayer, parent.isLaidOutBySpec {
            parent.setNeedsLayout()
            layer = parent
        }
    }

    /// Produces contents; called on the main thread during a tick when `needsDisplay` is set.
    /// A plain layer has nothing to draw; `AsyncLayer` renders on a worker.
    open func display(in context: DisplayContext) {}

    /// Called when the layer joins a host, and when its host's scale changes: contents drawn for
    /// another scale should be drawn again. The default does nothing.
    open func hostScaleChanged(to scale: Double) {}

    /// Called when the layer's tree joins `host`, before `hostScaleChanged`. A layer that follows
    /// the host's frames subscribes to its `displayLink` here. The default does nothing.
    open func didJoin(_ host: LayerHost) {}
    /// Called when the layer's subtree left `host`'s tree (it was removed from its superlayer,
    /// or from the tree with an ancestor): to let go of work only a shown layer needs, such as
    /// an image being fetched. The default does nothing.
    open func didLeave(_ host: LayerHost) {}

    /// Called when `theme` changes for this layer: its host's theme changed (the desktop went
    /// dark), an override above it was set, or it joined a tree with another theme. Only layers
    /// whose theme changed are called, top down. Widgets draw again here when they show a value
    /// from the theme; the default does nothing, so a layer that draws its own colours is not
    /// drawn again.
    open func themeDidChange() {}

    // MARK: Input

    /// Whether the layer and its subtree take pointer and touch input; when false, hit-testing
    /// passes through to what is below, as with a hidden layer.
    public var isUserInteractionEnabled = true
    /// The cursor shown while the pointer is over this layer, or nil to use the superlayer's.
    public var cursor: Cursor? {
        didSet { if cursor != oldValue, isHovered { host?.input.refreshCursor() } }
    }
    /// Whether the pointer is over this layer or one of its sublayers.
    public internal(set) var isHovered = false

    /// The deepest layer at `point`, given in this layer's own coordinates: sublayers first, top
    /// one first, then this layer. Hidden and transparent layers, layers that do not take input,
    /// and points outside a clipping layer find nothing. Override `contains(_:)` to widen or
    /// narrow a target. Iterative, so a tree of any depth is safe.
    public func hitTest(_ point: Point) -> Layer? {
        /// A layer being searched: its sublayers are tried from `next - 1` down to 0.
        struct Visit {
            let layer: Layer
            let point: Point
            let inside: Bool
            let sublayers: [Layer]
            var next: Int
        }
        func visit(_ layer: Layer, at point: Point) -> Visit? {
            guard !layer.isHidden, layer.isUserInteractionEnabled, layer.presentation().opacity > 0 else { return nil }
            let inside = layer.contains(point)
            if layer.clipsToBounds, !inside { return nil }
            return Visit(layer: layer, point: point, inside: inside, sublayers: layer.sublayers, next: layer.sublayers.count)
        }
        guard let first = visit(self, at: point) else { return nil }
        var stack = [first]
        while let top = stack.last {
            if top.next > 0 {
                let index = top.next - 1
                stack[stack.count - 1].next = index
                let sublayer = top.sublayers[index]
                if let entered = visit(sublayer, at: sublayer.convertFromSuperlayer(top.point)) { stack.append(entered) }
                continue
            }
            // Every sublayer missed: this layer is the hit if the point is inside it; otherwise
            // its superlayer tries the next sublayer down.
            stack.removeLast()
            if top.inside { return top.layer }
        }
        return nil
    }

    /// Whether `point`, in this layer's own coordinates, is inside it. The default is the bounds
    /// as seen (their presentation, while a size animates).
    open func contains(_ point: Point) -> Bool { presentation().bounds.contains(point) }

    /// Whether the layer can become the keyboard focus: on click, and when Tab reaches it.
    open var acceptsFocus: Bool { false }
    /// Whether the layer has the keyboard focus of its host.
    public var isFocused: Bool { host?.input.focusedLayer === self }
    /// Called when the layer gains or loses focus, or when its focus becomes visible (reached by
    /// the keyboard, so a focus ring is due). The default does nothing.
    open func focusChanged() {}
    /// Makes this layer the focus, if it accepts focus and is in a tree.
    @discardableResult
    public func becomeFocused() -> Bool { host?.input.focus(self, visible: false) ?? false }
    /// Gives the focus up, if this layer has it.
    public func resignFocus() { if isFocused { host?.input.focus(nil, visible: false) } }

    /// A button or finger went down on this layer or a sublayer that did not handle it. Return
    /// true to handle it: the layer then receives every move and the release of that press,
    /// even outside itself (an implicit grab). False passes it to the superlayer.
    open func pointerPressed(_ event: PointerEvent) -> Bool { false }
    /// The pointer or finger of a press this layer handled moved.
    open func pointerDragged(_ event: PointerEvent) {}
    /// The press this layer handled ended.
    open func pointerReleased(_ event: PointerEvent) {}
    /// The press this layer handled was taken away (a touch cancel, the pointer lost, the layer
    /// removed): undo any highlight and do not perform the press's action.
    open func pointerCancelled(_ event: PointerEvent) {}
    /// Whether this layer watches the presses its descendants take, and may take one over, as a
    /// scroll view does so that a drag that starts on a button scrolls (UIKit's
    /// `cancelsTouchesInView`). The router asks only layers that say so
    /// (`shouldTakeOverPress(_:)`); false by default.
    open var watchesDescendantPresses: Bool { false }
    /// Whether to take over a press on a descendant, asked of each watching ancestor, nearest
    /// first: as the press begins (`press.isBeginning`, before any descendant sees it) and as it
    /// moves, until the answer is `.decline` or `.takeOver`. With `.takeOver` the holder is asked
    /// to yield (`yieldsPress(_:to:)`); if it does, it gets `pointerCancelled`, this layer gets
    /// `pressTakenOver(_:)` and then `pointerDragged` with the move, and the rest of the press is
    /// this layer's, as if its `pointerPressed` had returned true. The default declines.
    open func shouldTakeOverPress(_ press: DescendantPress) -> PressTakeover { .decline }
    /// This layer took over `press` (see `shouldTakeOverPress(_:)`): start tracking it from
    /// `press.start`. The default does nothing.
    open func pressTakenOver(_ press: DescendantPress) {}
    /// Whether this layer, holding `press`, lets `ancestor` take it over; asked once, when the
    /// ancestor wants it, whose decision is then final for the press. True by default; a slider
    /// keeps sideways drags, text keeps a mouse's selection drag.
    open func yieldsPress(_ press: DescendantPress, to ancestor: Layer) -> Bool { true }
    /// Whether Tab passes over this layer while a descendant can take the focus, as GTK's
    /// scrolled window is a Tab stop only when nothing in it is; a click still focuses it.
    /// False by default.
    open var defersTabFocusToDescendants: Bool { false }
    /// The keyboard moved the focus to `descendant`: scroll so that it shows, as a scroll view
    /// does (GTK's focus adjustments, UIKit's focus engine). Asked of each ancestor, nearest
    /// first. The default does nothing.
    open func revealFocusedDescendant(_ descendant: Layer) {}
    /// The pointer moved over the layer while no layer holds a grab. Return true to stop it
    /// bubbling.
    open func pointerMoved(_ event: PointerEvent) -> Bool { false }
    /// The pointer came over this layer (or a sublayer). Sent to every layer under the pointer,
    /// outermost first; it does not bubble.
    open func pointerEntered(_ event: PointerEvent) {}
    /// The pointer left this layer and its sublayers. Sent deepest first; it does not bubble.
    open func pointerExited(_ event: PointerEvent) {}
    /// Scrolling over the layer. Return true to handle it; false passes it to the superlayer.
    open func scrolled(_ event: ScrollEvent) -> Bool { false }
    /// A key went down or repeats while this layer or a sublayer has the focus. Return true to
    /// handle it; false passes it on, and an unhandled Tab moves the focus.
    open func keyPressed(_ event: KeyEvent) -> Bool { false }
    /// A key went up. Return true to handle it.
    open func keyReleased(_ event: KeyEvent) -> Bool { false }
    /// Shortcuts that fire when a key press reaches this layer unhandled (see `KeyCommand`):
    /// after `keyPressed` here returned false, before the superlayer's turn.
    public var keyCommands: [KeyCommand] = []
    /// The menu to show when the user asks for this layer's context menu: a right click on it
    /// or a sublayer, a finger resting on it (`InputRouter.longPressDuration`, as GTK and UIKit
    /// open menus for touch), or the Menu key or Shift+F10 while it or a sublayer has the focus.
    /// The nearest layer with one answers; nil from it shows nothing. The window shows the menu
    /// in a popup at the pointer or finger (below the focused layer for a key). Setting it
    /// attaches the long press that opens it, a `LongPressGestureRecognizer` that follows
    /// fingers only.
    public var contextMenu: (() -> Menu?)? {
        didSet { if (contextMenu == nil) != (oldValue == nil) { contextMenuChanged() } }
    }
    /// The menu the layer offers by itself, where `contextMenu` is nil, when the user asks for
    /// one at `location` (in the layer's points; nil when a key asked). Nil, the default, leaves
    /// the request to the superlayer. The layer may act on the request first: text fields, text
    /// views and selectable labels move the caret to a click off the selection, as GTK's do,
    /// and return their edit menu.
    open func contextMenuRequested(at location: Point?) -> Menu? { nil }
    /// A short text the window shows near the pointer once it has rested on this layer (or a
    /// sublayer without a tool tip of its own) for a moment, as GTK's and UIKit's tool tips do.
    /// A press or a key hides it until the pointer moves on to another layer's.
    public var toolTip: String?
    /// The gesture recognizers attached to this layer (`addGestureRecognizer(_:)`), which follow
    /// the presses that land on it or its descendants.
    public internal(set) var gestureRecognizers: [GestureRecognizer] = []
    /// Whether a recognizer attached to an ancestor may follow a press this layer holds. A
    /// control says no to taps, as UIKit's buttons do, so a tap recognizer on a card does not
    /// swallow the clicks of the card's buttons. True by default.
    open func allowsAncestorGesture(_ recognizer: GestureRecognizer) -> Bool { true }

    // MARK: Accessibility (Layer+Accessibility.swift)

    /// What this layer is to an assistive technology: `accessibility` unless a widget says
    /// more. Widgets override it to describe themselves from their state, returning
    /// `accessibility` when the app set one, and call `accessibilityDidChange()` when what it
    /// returns changes. Read only while an assistive technology is active.
    open var accessibilityElement: AccessibilityElement? { accessibilityStorage?.element }
    /// Whether `accessibilityElement` is non-nil, answered without building it: the tree is
    /// walked through this on every change, and an element can be costly to build (a list
    /// cell's name is its labels' text). A widget whose element is costly overrides both, and
    /// they must agree.
    open var hasAccessibilityElement: Bool { accessibilityElement != nil }
    /// The descendant that has the focus for assistive technologies while this layer has the
    /// keyboard (ARIA's active descendant): a menu's highlighted row, which arrow keys move
    /// while the menu keeps the keyboard. Nil, the default, leaves the focus on this layer.
    /// Call `accessibilityActiveDescendantDidChange()` when it changes.
    open var accessibilityActiveDescendant: Layer? { nil }
    /// What the app set for assistive technologies and the element's number: one pointer on
    /// the many layers that have none.
    var accessibilityStorage: AccessibilityStorage?

    // MARK: Host and composition

    /// Set on the root layer only, by its host.
    weak var rootHost: LayerHost? {
        didSet { forEachLayer(in: self) { $0.currentHost = rootHost } }
    }
    /// The host of the tree this layer is in, kept on every layer as it joins and leaves a tree,
    /// so finding it costs nothing however deep the layer is.
    private weak var currentHost: LayerHost?

    /// What the composer needs to know of this layer between copies of the tree.
    struct CompositionRecord {
        /// Whether its drawing changed since the tree was last copied.
        var needsComposite = true
        /// Whether a change since then shows in its whole subtree: the composer repaints
        /// where each of its sublayers is.
        var subtreeNeedsComposite = false
    }

    var composition = CompositionRecord()

    /// The host showing this layer's tree, if any.
    public var host: LayerHost? { currentHost }

    func setNeedsComposite() {
        composition.needsComposite = true
        host?.treeChanged()
    }

    func setNeedsCompositeInSubtree() {
        composition.subtreeNeedsComposite = true
        host?.treeChanged()
    }

    /// Joining a tree: whatever the subtree has pending becomes the host's work.
    func attached(to host: LayerHost?) {
        guard let host else { return }
        let scale = host.geometry.scale
        forEachLayer(in: self) { $0.currentHost = host }
        forEachLayer(in: self) { layer in
            layer.composition.needsComposite = true
            if !layer.animations.isEmpty { host.layerStartedAnimating(layer) }
            if layer.isGroupPending { host.groupNeedsSettling(layer) }
            layer.didJoin(host)
            layer.hostScaleChanged(to: scale)
        }
        // A subtree made, or last shown, under another theme takes this tree's.
        notifyThemeChanges(from: self)
        // Whatever the subtree had pending is walked for at the next tick.
        host.layoutNeeded()
        host.displayNeeded()
        host.treeChanged()
    }

    func markDisplayed() { needsDisplay = false }

    // MARK: Theme (Layer+Theme.swift)

    /// A theme pinned for this layer and its subtree; nil follows the superlayer's.
    var storedThemeOverride: Theme?
    /// The theme this layer was last told about (`themeDidChange`), so a tree walk calls only the
    /// layers whose theme changed; nil until the first change from `Theme.light`.
    var seenTheme: Theme?
}

/// Visits `root` and every layer below it, without recursion.
@MainActor
func forEachLayer(in root: Layer, _ visit: (Layer) -> Void) {
    var stack = [root]
    while let layer = stack.popLast() {
        visit(layer)
        stack.append(contentsOf: layer.sublayers.reversed())
    }
}
