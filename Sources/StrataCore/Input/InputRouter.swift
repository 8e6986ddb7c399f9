/// Delivers a host's input to its layers, after UIKit's hit-testing and responder chain.
///
/// Pointer and touch events go to the deepest layer under them (`Layer.hitTest`), and bubble to
/// its ancestors until one handles them. A handled press grabs its pointer or finger: moves and
/// the release go to that layer, wherever they happen. Keys go to the focused layer and bubble;
/// an unhandled Tab or Shift+Tab moves the focus through focusable layers in tree order. Hover
/// is tracked per layer, and the cursor is the nearest `Layer.cursor` above the hovered layer.
///
/// Every value is checked: points that are not finite are dropped, touches beyond
/// `maximumTouches` are ignored, and layers removed from the tree stop receiving anything.
/// Main actor only.
@MainActor
public final class InputRouter {
    /// Presses of one button closer than this in time (and `doubleClickDistance` in space) count
    /// as a double or triple click. 400 ms, the GNOME and GTK default, unless the platform or the
    /// app sets it; clamped to 0…`maximumDoubleClickInterval`, so that a sequence of clicks
    /// always ends when the clicking pauses.
    public var doubleClickInterval: Duration = .milliseconds(400) {
        didSet { doubleClickInterval = min(max(doubleClickInterval, .zero), Self.maximumDoubleClickInterval) }
    }
    /// How far apart, in points, presses of a multiple click may be: 0…`maximumDoubleClickDistance`,
    /// and 5 for a value that is not a number.
    public var doubleClickDistance = 5.0 {
        didSet { doubleClickDistance = doubleClickDistance.isNaN ? 5 : min(max(doubleClickDistance, 0), Self.maximumDoubleClickDistance) }
    }
    /// The longest `doubleClickInterval` taken; GNOME's setting goes to 1 s.
    public static let maximumDoubleClickInterval = Duration.seconds(5)
    /// The farthest `doubleClickDistance` taken, in points.
    public static let maximumDoubleClickDistance = 100.0
    /// How far, in points, a press must move before it counts as a drag: a scroll view then takes
    /// a press over from the button it began on (`Layer.shouldTakeOverPress(_:)`). 8, GTK's
    /// `gtk-dnd-drag-threshold`; clamped to 0…`maximumDragThreshold`, and 8 for a value that is
    /// not a number.
    public var dragThreshold = 8.0 {
        didSet { dragThreshold = dragThreshold.isNaN ? 8 : min(max(dragThreshold, 0), Self.maximumDragThreshold) }
    }
    /// The farthest `dragThreshold` taken, in points.
    public static let maximumDragThreshold = 100.0
    /// How long, in seconds, a finger rests on a layer with a `Layer.contextMenu` before the menu
    /// opens. 0.5, GTK's `gtk-long-press-time`, unless the platform or the app sets it; clamped
    /// to 0…10, and 0.5 for a value that is not a number.
    public var longPressDuration = 0.5 {
        didSet { longPressDuration = longPressDuration.isNaN ? 0.5 : min(max(longPressDuration, 0), 10) }
    }
    /// How many fingers are tracked at once; more are ignored until some lift.
    public let maximumTouches = 16

    /// The layer with the keyboard focus.
    public var focusedLayer: Layer? { focus.flatMap { attached($0) } }
    /// Whether the focus was reached by the keyboard, so focus rings show (CSS `:focus-visible`);
    /// off while the surface has lost the keyboard, back when it returns.
    public private(set) var isFocusVisible = false
    /// Whether the surface has the seat's keyboard focus.
    public private(set) var hasKeyboardFocus = false
    /// The modifiers last reported.
    public private(set) var modifiers: KeyModifiers = [] {
        didSet {
            guard modifiers != oldValue else { return }
            for watcher in keyWatchers where watcher.layer.flatMap(attached) != nil { watcher.onModifiers(modifiers) }
        }
    }
    /// Where the pointer is, in surface points, while it is over the surface.
    public private(set) var pointerLocation: Point?
    /// The cursor the hovered layer asks for.
    public private(set) var cursor: Cursor = .default
    /// Called when `cursor` changes; the platform shows it.
    public var onCursorChange: ((Cursor) -> Void)?
    /// Called with every event before it is delivered, for observers such as a key display.
    public var onEvent: ((InputEvent, UInt32) -> Void)?
    /// Called when the tool tip under the pointer changes (see `Layer.toolTip`): its text and
    /// the pointer's place in surface points, or nil when none should show. The window shows it
    /// after a delay.
    public var onToolTipChange: ((_ text: String?, _ point: Point) -> Void)?
    /// The layer whose tool tip is current, and its text.
    private var toolTipOwner: (layer: WeakLayer, text: String)?
    /// A tool tip hidden by a press or a key: not shown again while the pointer stays on it.
    private var suppressedToolTipOwner: WeakLayer?

    /// Shows a menu in a popup: set by the window. It shows context menus (see
    /// `Layer.contextMenu`) and drop-downs' menus (`showMenu(_:below:)`). Without it, right
    /// clicks and the menu keys go to layers as usual, and no menu shows.
    public var onShowMenu: ((Menu, MenuAnchor) -> Void)?

    /// Asks the window to show `menu` below `rect` (in `layer`'s points), left edges aligned,
    /// or above it where there is no room below: a drop-down's list. Returns whether anything
    /// can show it (false with no window, such as headless).
    @discardableResult
    public func showMenu(_ menu: Menu, below rect: Rect, in layer: Layer) -> Bool {
        guard let show = onShowMenu, attached(layer) != nil else { return false }
        show(menu, .below(layer.convert(rect, to: nil)))
        return true
    }

    /// Shows the context menu that a right click at `point` (in `layer`'s points) would: the
    /// nearest `Layer.contextMenu` from `layer` up, or the menu a layer offers by itself
    /// (`Layer.contextMenuRequested(at:)`). Without a point it shows as the Menu key does, below
    /// `layer`'s top-left corner. Returns whether a menu showed: false when no layer has one, or
    /// nothing can show it (no window, such as headless).
    @discardableResult
    public func showContextMenu(for layer: Layer, at point: Point? = nil) -> Bool {
        guard attached(layer) != nil else { return false }
        return presentContextMenu(from: layer, at: point.map { layer.convert($0, to: nil) })
    }

    private weak var host: LayerHost?
    /// The gesture recognizers following presses now.
    let gestures = GestureArena()
    /// A recognizer took the mouse press from the layers: until the buttons are up, the pointer
    /// moves for the recognizers alone.
    private var mouseClaimed = false
    private var focusRingHiddenWhileInactive = false
    private weak var focus: Layer?
    /// Layers under the pointer, deepest first.
    private var hovered: [WeakLayer] = []
    private var mouseGrab: WeakLayer?
    /// The press that began the mouse grab, for the ancestors that may take it over.
    private var mousePress: WatchedPress?
    private var pressedButtons: Set<PointerButton> = []
    private var touches: [Int32: Touch] = [:]
    private var lastClick: (time: UInt32, location: Point, button: PointerButton, count: Int)?

    private struct Touch {
        weak var handler: Layer?
        var location: Point
        var press: WatchedPress
    }

    /// A press a layer holds, with the ancestors that may still take it over, nearest first.
    private struct WatchedPress {
        /// The press as it began, in surface points (`location` too).
        let start: PointerEvent
        var watchers: [WeakLayer]
    }

    init(host: LayerHost) {
        self.host = host
        gestures.onClaim = { [weak self] recognizer, pointers in self?.claim(pointers, for: recognizer) }
    }

    /// Delivers `event`. `time` is the platform's timestamp in milliseconds (wrapping); when nil,
    /// the monotonic clock's.
    public func post(_ event: InputEvent, time: UInt32? = nil) {
        let time = time ?? Self.now
        onEvent?(event, time)
        switch event {
        case let .pointerEntered(point), let .pointerMoved(point):
            guard point.isFinite else { return }
            pointerMoved(to: point, time: time)
        case .pointerExited:
            pointerExited(time: time)
        case let .pointerButton(button, isPressed):
            isPressed ? pointerPressed(button, time: time) : pointerReleased(button, time: time)
        case let .scroll(scroll):
            scrolled(scroll, time: time)
        case let .touchpadPinch(pinch):
            touchpadGesture(pinch.phase, time: time) { $0.touchpadPinched(pinch.sanitized, at: $1) }
        case let .touchpadSwipe(swipe):
            touchpadGesture(swipe.phase, time: time) { $0.touchpadSwiped(swipe.sanitized, at: $1) }
        case let .touchDown(id, point):
            guard point.isFinite else { return }
            touchDown(id: id, at: point, time: time)
        case let .touchMoved(id, point):
            guard point.isFinite, touches[id] != nil else { return }
            gestures.pressMoved(.touch(id), pointerEvent(at: point, source: .touch(id: id), time: time))
            guard var touch = touches[id] else { return }
            touch.location = point
            guard let holder = touch.handler.flatMap(attached) else {
                touches[id] = touch
                return
            }
            let takeover = takeOver(&touch.press, from: holder, at: point, time: time)
            if let takeover { touch.handler = takeover.layer }
            touches[id] = touch
            if let takeover { handOver(from: holder, to: takeover, at: point, source: .touch(id: id), time: time) }
            let handler = takeover?.layer ?? holder
            guard attached(handler) != nil else { return }
            handler.pointerDragged(pointerEvent(for: handler, at: point, source: .touch(id: id), time: time))
        case let .touchUp(id):
            guard let location = touches[id]?.location else { return }
            gestures.pressEnded(.touch(id), pointerEvent(at: location, source: .touch(id: id), time: time))
            guard let touch = touches.removeValue(forKey: id) else { return }
            if let handler = touch.handler.flatMap(attached) {
                handler.pointerReleased(pointerEvent(for: handler, at: touch.location, source: .touch(id: id), time: time))
            }
        case .touchCancelled:
            let cancelled = touches
            touches = [:]
            for (id, touch) in cancelled {
                gestures.pressCancelled(.touch(id), pointerEvent(at: touch.location, source: .touch(id: id), time: time))
                guard let handler = touch.handler.flatMap(attached) else { continue }
                handler.pointerCancelled(pointerEvent(for: handler, at: touch.location, source: .touch(id: id), time: time))
            }
        case .keyboardEntered:
            hasKeyboardFocus = true
            // A focus ring hidden while the window was inactive shows again.
            if focusRingHiddenWhileInactive, let focused = focusedLayer {
                isFocusVisible = true
                focused.focusChanged()
            }
            focusRingHiddenWhileInactive = false
        case .keyboardExited:
            hasKeyboardFocus = false
            modifiers = []
            // An inactive window shows no focus ring, as GTK's do; the focus itself stays.
            if isFocusVisible, let focused = focusedLayer {
                isFocusVisible = false
                focusRingHiddenWhileInactive = true
                focused.focusChanged()
            }
        case let .key(key):
            modifiers = key.modifiers
            keyEvent(key, time: time)
        case let .modifiersChanged(new):
            modifiers = new
        }
        // A discrete event's response should make the next frame (see `LayerHost.displayAhead`);
        // motion and scrolling stay coalesced into ticks.
        switch event {
        case .pointerButton, .touchDown, .touchUp, .key: host?.scheduleDisplayAhead()
        default: break
        }
        switch event {
        case .pointerButton(_, isPressed: true), .touchDown, .key: hideToolTip()
        default: break
        }
    }

    /// Gives `layer` the focus (nil clears it). Refused, returning false, for a layer that does
    /// not accept focus or is in another tree.
    @discardableResult
    public func focus(_ layer: Layer?, visible: Bool) -> Bool {
        if let layer, !layer.acceptsFocus || attached(layer) == nil { return false }
        // Not `focusedLayer`: a layer just removed from the tree must still hear it lost focus.
        let old = focus
        let isVisible = visible && layer != nil
        guard old !== layer || isFocusVisible != isVisible else { return true }
        focus = layer
        isFocusVisible = isVisible
        focusRingHiddenWhileInactive = false
        if old !== layer { old?.focusChanged() }
        layer?.focusChanged()
        if isVisible, old !== layer, let layer {
            // Reached by the keyboard: each scrolling ancestor brings it into view.
            var ancestor = layer.superlayer
            while let current = ancestor {
                current.revealFocusedDescendant(layer)
                ancestor = current.superlayer
            }
        }
        if old !== layer, let host {
            host.textInput?.focusChanged(in: host)
            host.accessibilityFocusChanged()
        }
        return true
    }

    /// Moves the focus to the next focusable layer in tree order (the previous one when
    /// `forward` is false), wrapping around, as Tab and Shift+Tab do.
    public func moveFocus(forward: Bool) {
        guard let root = host?.rootLayer else { return }
        // The focused layer keeps its place even if Tab would pass over it (a list deferring to
        // the links in its rows): the next stop is the one after it, not the first of all.
        let candidates = Self.focusOrder(in: root, keeping: focusedLayer)
        guard !candidates.isEmpty else { return }
        let next: Layer
        if let current = focusedLayer, let index = candidates.firstIndex(where: { $0 === current }) {
            guard candidates.count > 1 else { return }
            next = candidates[(index + (forward ? 1 : candidates.count - 1)) % candidates.count]
        } else {
            next = forward ? candidates[0] : candidates[candidates.count - 1]
        }
        focus(next, visible: true)
    }

    /// Focusable layers that can be seen and take input, in tree order (pre-order, sublayers in
    /// reading order); a layer that defers to its descendants (`defersTabFocusToDescendants`)
    /// only when none of them is in the order. Iterative, so a deep tree cannot overflow the
    /// stack.
    package static func focusOrder(in root: Layer, keeping kept: Layer? = nil) -> [Layer] {
        enum Step {
            case visit(Layer)
            /// The subtree of the deferring layer at this index of the result is done.
            case close(Int)
        }
        var result: [Layer] = []
        var stack = [Step.visit(root)]
        while let step = stack.popLast() {
            switch step {
            case let .close(index):
                // Deeper deferring layers were closed first and sit after it: the index holds.
                if result.count > index + 1, result[index] !== kept { result.remove(at: index) }
            case let .visit(layer):
                guard !layer.isHidden, layer.isUserInteractionEnabled, layer.opacity > 0 else { continue }
                if layer.acceptsFocus, !layer.bounds.isEmpty {
                    if layer.defersTabFocusToDescendants { stack.append(.close(result.count)) }
                    result.append(layer)
                }
                stack.append(contentsOf: layer.sublayersInReadingOrder.reversed().map(Step.visit))
            }
        }
        return result
    }

    // MARK: Pointer

    private func pointerMoved(to point: Point, time: UInt32) {
        pointerLocation = point
        if !pressedButtons.isEmpty { gestures.pressMoved(.mouse, pointerEvent(at: point, source: .mouse, time: time)) }
        if mouseClaimed { return }
        if let grab = mouseGrab?.layer.flatMap(attached) {
            var handler = grab
            if var press = mousePress {
                let takeover = takeOver(&press, from: grab, at: point, time: time)
                mousePress = press
                if let takeover {
                    mouseGrab = WeakLayer(takeover.layer)
                    handOver(from: grab, to: takeover, at: point, source: .mouse, time: time)
                    handler = takeover.layer
                }
            }
            if attached(handler) != nil {
                handler.pointerDragged(pointerEvent(for: handler, at: point, source: .mouse, time: time))
            }
        } else {
            let hit = hitTest(point)
            updateHover(hit, at: point, time: time)
            bubble(from: hit, at: point) { $0.pointerMoved(pointerEvent(for: $0, local: $1, at: point, time: time)) }
        }
        refreshCursor()
    }

    private func pointerExited(time: UInt32) {
        guard let point = pointerLocation else { return }
        if !pressedButtons.isEmpty { gestures.pressCancelled(.mouse, pointerEvent(at: point, source: .mouse, time: time)) }
        gestures.touchpadLost()
        if let grab = mouseGrab?.layer.flatMap(attached) {
            grab.pointerCancelled(pointerEvent(for: grab, at: point, source: .mouse, time: time))
        }
        mouseGrab = nil
        mousePress = nil
        mouseClaimed = false
        pressedButtons = []
        updateHover(nil, at: point, time: time)
        pointerLocation = nil
    }

    private func pointerPressed(_ button: PointerButton, time: UInt32) {
        guard let point = pointerLocation, pressedButtons.count < 32 else { return }
        pressedButtons.insert(button)
        let count = clickCount(button: button, at: point, time: time)
        if mouseClaimed { return }
        if button == .right, mouseGrab == nil, let hit = hitTest(point), presentContextMenu(from: hit, at: point) {
            // The menu takes this press: its release goes nowhere.
            mouseClaimed = true
            return
        }
        if let grab = mouseGrab?.layer.flatMap(attached) {
            // Another button while one is held belongs to the same grab.
            _ = grab.pointerPressed(pointerEvent(for: grab, at: point, button: button, source: .mouse, clickCount: count, time: time))
            return
        }
        let (handler, press) = beginPress(PointerEvent(location: point, hostLocation: point, button: button, source: .mouse,
                                                       clickCount: count, modifiers: modifiers, time: time))
        mouseGrab = handler.map(WeakLayer.init)
        mousePress = handler != nil ? press : nil
        refreshCursor()
    }

    private func pointerReleased(_ button: PointerButton, time: UInt32) {
        guard let point = pointerLocation, pressedButtons.remove(button) != nil else { return }
        if pressedButtons.isEmpty {
            gestures.pressEnded(.mouse, pointerEvent(at: point, button: button, source: .mouse, time: time))
        }
        if mouseClaimed {
            if pressedButtons.isEmpty {
                mouseClaimed = false
                updateHover(hitTest(point), at: point, time: time)
                refreshCursor()
            }
            return
        }
        if let grab = mouseGrab?.layer.flatMap(attached) {
            grab.pointerReleased(pointerEvent(for: grab, at: point, button: button, source: .mouse,
                                              clickCount: lastClick?.count ?? 1, time: time))
        }
        if pressedButtons.isEmpty, mouseGrab != nil {
            mouseGrab = nil
            mousePress = nil
            updateHover(hitTest(point), at: point, time: time)
            refreshCursor()
        }
    }

    private func clickCount(button: PointerButton, at point: Point, time: UInt32) -> Int {
        let intervalMilliseconds = Monotonic.nanoseconds(doubleClickInterval) / 1_000_000
        var count = 1
        if let last = lastClick, last.button == button, UInt64(time &- last.time) <= intervalMilliseconds,
           abs(point.x - last.location.x) <= doubleClickDistance, abs(point.y - last.location.y) <= doubleClickDistance {
            count = last.count &+ 1
        }
        lastClick = (time, point, button, count)
        return count
    }

    private func scrolled(_ scroll: ScrollInput, time: UInt32) {
        guard let point = pointerLocation, scroll.deltaX.isFinite, scroll.deltaY.isFinite else { return }
        bubble(from: hitTest(point), at: point) {
            $0.scrolled(ScrollEvent(location: $1, scroll: scroll, modifiers: modifiers, time: time))
        }
    }

    // MARK: Touch

    private func touchDown(id: Int32, at point: Point, time: UInt32) {
        // A live id going down again: the old finger is cancelled, not released, so it acts on
        // nothing.
        if let old = touches[id] {
            gestures.pressCancelled(.touch(id), pointerEvent(at: old.location, source: .touch(id: id), time: time))
        }
        if let old = touches.removeValue(forKey: id), let handler = old.handler.flatMap(attached) {
            handler.pointerCancelled(pointerEvent(for: handler, at: old.location, source: .touch(id: id), time: time))
        }
        guard touches.count < maximumTouches else { return }
        let (handler, press) = beginPress(PointerEvent(location: point, hostLocation: point, source: .touch(id: id),
                                                       modifiers: modifiers, time: time))
        touches[id] = Touch(handler: handler, location: point, press: press)
    }

    /// Starts a press of a mouse button or a finger (`start`, in host coordinates): a watcher
    /// that takes it over at once gets it, else the layers under it are offered it from the
    /// deepest up. Focus moves to whichever layer it lands on. The layer that took it, if any,
    /// and the press as the watchers above that layer will follow it.
    private func beginPress(_ start: PointerEvent) -> (handler: Layer?, press: WatchedPress) {
        let point = start.hostLocation
        let hit = hitTest(point)
        let handler: Layer?
        let taker = takeOverAtBeginning(start, hit: hit)
        if let taker {
            focusOnPress(taker)
            handler = taker
        } else {
            focusOnPress(hit)
            handler = bubble(from: hit, at: point) { layer, local in
                layer.pointerPressed(PointerEvent(location: local, hostLocation: point, button: start.button, source: start.source,
                                                  clickCount: start.clickCount, modifiers: start.modifiers, time: start.time))
            }
        }
        let press = WatchedPress(start: start, watchers: handler.map(watchers(above:)) ?? [])
        // Then the recognizers where it landed (above the scroll view that stopped, if one did).
        var chain: [Layer] = []
        var node = taker ?? hit
        while let layer = node {
            chain.append(layer)
            node = layer.superlayer
        }
        let pointer = GesturePointer(start.source)
        pendingPress = (pointer, handler, press)
        defer { pendingPress = nil }
        gestures.pressBegan(pointer, start, chain: chain, holder: handler)
        // A recognizer that won the press as it began has cancelled its holder (see `claim`).
        return (pendingPress?.handler ?? nil, pendingPress?.press ?? press)
    }

    // MARK: Gestures

    /// A press being begun, while its recognizers enroll: a claim then finds it here.
    private var pendingPress: (pointer: GesturePointer, handler: Layer?, press: WatchedPress)?

    /// A recognizer won `pointers`: the layers holding those presses are cancelled (the hit
    /// layer or an ancestor it bubbled to, such as a scroll view dragging), no scroll view may
    /// take them over, and the rest of each press is the recognizers' alone.
    private func claim(_ pointers: Set<GesturePointer>, for recognizer: GestureRecognizer) {
        for pointer in pointers {
            let source: PointerSource
            switch pointer {
            case .mouse: source = .mouse
            case let .touch(id): source = .touch(id: id)
            case .touchpad: continue
            }
            if var pending = pendingPress, pending.pointer == pointer {
                // Still beginning: the holder has seen the press and loses it.
                if let holder = pending.handler {
                    holder.pointerCancelled(pointerEvent(for: holder, at: pending.press.start.hostLocation, source: source,
                                                         time: pending.press.start.time))
                }
                pending.handler = nil
                pending.press.watchers = []
                pendingPress = pending
                if pointer == .mouse { mouseClaimed = true }
                continue
            }
            switch pointer {
            case .mouse:
                // Also while the last button's release is being handled: the release then goes
                // to the recognizers alone.
                guard let point = pointerLocation else { continue }
                if let grab = mouseGrab?.layer.flatMap(attached) {
                    grab.pointerCancelled(pointerEvent(for: grab, at: point, source: .mouse, time: Self.now))
                }
                mouseGrab = nil
                mousePress = nil
                mouseClaimed = true
            case let .touch(id):
                guard var touch = touches[id] else { continue }
                let holder = touch.handler.flatMap(attached)
                touch.handler = nil
                touch.press.watchers = []
                touches[id] = touch
                if let holder {
                    holder.pointerCancelled(pointerEvent(for: holder, at: touch.location, source: .touch(id: id), time: Self.now))
                }
            case .touchpad:
                continue
            }
        }
        refreshCursor()
    }

    /// A touchpad gesture step where the pointer is, for the recognizers under it.
    private func touchpadGesture(_ phase: TouchpadGesturePhase, time: UInt32,
                                 deliver: (GestureRecognizer, Point) -> Void) {
        guard let point = pointerLocation else { return }
        let chain = phase == .began ? Self.chain(from: hitTest(point), at: point).map(\.layer) : []
        gestures.touchpad(at: point, chain: chain, phase: phase, deliver: deliver)
    }

    // MARK: Presses taken over

    /// The ancestors of `layer` that watch their descendants' presses, nearest first.
    private func watchers(above layer: Layer) -> [WeakLayer] {
        var result: [WeakLayer] = []
        var node = layer.superlayer
        while let ancestor = node {
            if ancestor.watchesDescendantPresses { result.append(WeakLayer(ancestor)) }
            node = ancestor.superlayer
        }
        return result
    }

    /// `press` as `layer` sees it, at `point` (surface points) now.
    private func describe(_ press: WatchedPress, for layer: Layer, at point: Point, time: UInt32,
                          isBeginning: Bool = false) -> DescendantPress {
        var start = press.start
        start.location = layer.convertFromHost(start.hostLocation)
        var current = start
        current.location = layer.convertFromHost(point)
        current.hostLocation = point
        current.time = time
        return DescendantPress(start: start, current: current, isBeginning: isBeginning)
    }

    /// Offers a press that is beginning to the watching ancestors of `hit`, nearest first, before
    /// any descendant sees it; returns the one that took it (a moving scroll view a tap stops).
    private func takeOverAtBeginning(_ start: PointerEvent, hit: Layer?) -> Layer? {
        let press = WatchedPress(start: start, watchers: [])
        var node = hit?.superlayer
        while let layer = node {
            if layer.watchesDescendantPresses {
                let offered = describe(press, for: layer, at: start.hostLocation, time: start.time, isBeginning: true)
                if layer.shouldTakeOverPress(offered) == .takeOver {
                    layer.pressTakenOver(offered)
                    return layer
                }
            }
            node = layer.superlayer
        }
        return nil
    }

    /// Offers a moved press that `holder` has to the ancestors still watching it, nearest first,
    /// and returns the first that takes it over with the holder's consent. Each watcher decides
    /// once: declining, or wanting it (whether or not the holder yields), ends its watch.
    private func takeOver(_ press: inout WatchedPress, from holder: Layer, at point: Point,
                          time: UInt32) -> (layer: Layer, press: DescendantPress)? {
        var index = 0
        while index < press.watchers.count {
            guard let watcher = press.watchers[index].layer.flatMap(attached), holder.isDescendant(of: watcher) else {
                press.watchers.remove(at: index)
                continue
            }
            let offered = describe(press, for: watcher, at: point, time: time)
            switch watcher.shouldTakeOverPress(offered) {
            case .undecided:
                index += 1
            case .decline:
                press.watchers.remove(at: index)
            case .takeOver:
                press.watchers.remove(at: index)
                if holder.yieldsPress(describe(press, for: holder, at: point, time: time), to: watcher) { return (watcher, offered) }
            }
        }
        return nil
    }

    /// The holder of a press loses it (cancelled: no action, no highlight) and the layer that took
    /// it over starts tracking it.
    private func handOver(from holder: Layer, to takeover: (layer: Layer, press: DescendantPress), at point: Point,
                          source: PointerSource, time: UInt32) {
        gestures.pressTakenOver(GesturePointer(source), by: takeover.layer)
        holder.pointerCancelled(pointerEvent(for: holder, at: point, source: source, time: time))
        takeover.layer.pressTakenOver(takeover.press)
        refreshCursor()
    }

    // MARK: Keys

    /// Lets `layer` see every key press before the focused layer does, wherever the focus is,
    /// and each change of the held modifiers: a menu bar's F10 and Alt mnemonics, which GTK's
    /// window handles for its menu bar ahead of the focused widget. `onKey` returns whether it
    /// took the key (it then goes no further); it should take only keys that are its own.
    /// Nothing is called while `layer` is in another tree, and nothing once it is gone.
    public func watchKeys(for layer: Layer, onKey: @escaping (KeyEvent) -> Bool,
                          onModifiers: @escaping (KeyModifiers) -> Void) {
        keyWatchers.removeAll { $0.layer == nil || $0.layer === layer }
        keyWatchers.append(KeyWatcher(layer: layer, onKey: onKey, onModifiers: onModifiers))
    }

    private struct KeyWatcher {
        weak var layer: Layer?
        let onKey: (KeyEvent) -> Bool
        let onModifiers: (KeyModifiers) -> Void
    }

    private var keyWatchers: [KeyWatcher] = []

    private func keyEvent(_ key: KeyInput, time: UInt32) {
        dropFocusIfUnreachable()
        let event = KeyEvent(key: key, time: time)
        let start = focusedLayer ?? host?.rootLayer
        if key.state == .released {
            bubble(from: start) { $0.keyReleased(event) }
            return
        }
        for watcher in keyWatchers {
            guard let layer = watcher.layer.flatMap(attached), !layer.isHidden else { continue }
            if watcher.onKey(event) { return }
        }
        let handled = bubble(from: start) { layer in
            if layer.keyPressed(event) { return true }
            guard let command = layer.keyCommands.first(where: { $0.matches(key) }) else { return false }
            command.action()
            return true
        } != nil
        let tab = key.keysym == .tab || key.keysym == .leftTab
        if !handled, tab, key.modifiers.isDisjoint(with: [.control, .alt, .logo]) {
            moveFocus(forward: key.keysym == .tab && !key.modifiers.contains(.shift))
        }
        let menuKey = key.keysym == .menu || key.keysym == .f10 && key.modifiers.contains(.shift)
        if !handled, menuKey, let start { presentContextMenu(from: start, at: nil) }
    }

    /// Shows the context menu asked for on `layer` at `point` (surface points; nil from a key),
    /// if a layer from it up has one; returns whether it did.
    @discardableResult
    private func presentContextMenu(from layer: Layer, at point: Point?) -> Bool {
        guard let show = onShowMenu, let menu = contextMenu(from: layer, at: point) else { return false }
        // From a key: below the layer's top-left corner, as GTK places a keyboard-opened menu.
        let frame = layer.convert(layer.bounds, to: nil)
        show(menu, .point(point ?? Point(x: frame.minX, y: frame.maxY)))
        return true
    }

    /// The menu of the nearest layer from `layer` up that has one: its `contextMenu` (nil from
    /// it ends the search), or the one it offers by itself for a request at `point`.
    private func contextMenu(from layer: Layer, at point: Point?) -> Menu? {
        var node: Layer? = layer
        while let current = node {
            if let provider = current.contextMenu { return provider() }
            if let offered = current.contextMenuRequested(at: point.map(current.convertFromHost)) { return offered }
            node = current.superlayer
        }
        return nil
    }

    /// A focused layer that was hidden, made transparent or non-interactive (itself or an
    /// ancestor) since it took the focus gives it up, as GTK moves focus off hidden widgets: keys
    /// must not reach what the user cannot see.
    private func dropFocusIfUnreachable() {
        guard let focused = focusedLayer else { return }
        var node: Layer? = focused
        var reachable = focused.acceptsFocus
        while reachable, let layer = node {
            reachable = !layer.isHidden && layer.isUserInteractionEnabled && layer.opacity > 0
            node = layer.superlayer
        }
        if !reachable { focus(nil, visible: false) }
    }

    /// After the tree changed under a pointer that did not move (layout, a layer added, hidden or
    /// scrolled), hover and cursor follow what is now under it. The host calls this after each
    /// tick's layout; a grabbed pointer keeps its hover until release.
    func treeChanged() {
        guard let point = pointerLocation, mouseGrab?.layer.flatMap(attached) == nil else { return }
        let hit = hitTest(point)
        guard hit !== hovered.first?.layer else { return }
        updateHover(hit, at: point, time: Self.now)
        refreshCursor()
    }

    // MARK: Hover and cursor

    private func updateHover(_ hit: Layer?, at point: Point, time: UInt32) {
        defer { updateToolTip(at: point) }
        let chain = Self.chain(from: hit, at: point)
        let previous = hovered.compactMap(\.layer)
        // Only the part of the old chain still in this tree hears that the pointer left.
        let leaving = Self.chain(from: deepestHoveredInTree(), at: point)
        hovered = chain.map { WeakLayer($0.layer) }
        let now = Set(chain.map { ObjectIdentifier($0.layer) })
        let before = Set(previous.map(ObjectIdentifier.init))
        for layer in previous where !now.contains(ObjectIdentifier(layer)) { layer.isHovered = false }
        for (layer, local) in leaving where !now.contains(ObjectIdentifier(layer)) {
            layer.pointerExited(pointerEvent(for: layer, local: local, at: point, time: time))
        }
        for (layer, local) in chain.reversed() where !before.contains(ObjectIdentifier(layer)) {
            layer.isHovered = true
            layer.pointerEntered(pointerEvent(for: layer, local: local, at: point, time: time))
        }
    }

    /// The nearest hovered layer with a tool tip becomes the current one, unless a press hid it.
    private func updateToolTip(at point: Point) {
        guard let report = onToolTipChange else { return }
        let owner = hovered.lazy.compactMap(\.layer).first { $0.toolTip != nil }
        if let suppressed = suppressedToolTipOwner?.layer, suppressed === owner { return }
        suppressedToolTipOwner = nil
        let text = owner?.toolTip
        guard owner !== toolTipOwner?.layer.layer || text != toolTipOwner?.text else { return }
        toolTipOwner = owner.map { (WeakLayer($0), $0.toolTip ?? "") }
        report(text, point)
    }

    /// A press or a key hides the current tool tip until the pointer moves on.
    private func hideToolTip() {
        guard let owner = toolTipOwner else { return }
        suppressedToolTipOwner = owner.layer
        toolTipOwner = nil
        onToolTipChange?(nil, pointerLocation ?? Point(x: 0, y: 0))
    }

    /// `hit` and its ancestors, deepest first, each with `point` in its own coordinates:
    /// converted once down from the root, so a deep tree costs its depth, not its square.
    private static func chain(from hit: Layer?, at point: Point) -> [(layer: Layer, local: Point)] {
        var layers: [Layer] = []
        var node = hit
        while let layer = node {
            layers.append(layer)
            node = layer.superlayer
        }
        var local = point
        var result: [(layer: Layer, local: Point)] = []
        result.reserveCapacity(layers.count)
        for layer in layers.reversed() {
            local = layer.convertFromSuperlayer(local)
            result.append((layer, local))
        }
        return result.reversed()
    }

    /// The deepest hovered layer still in this tree: the hover chain, read from the root down,
    /// stays linked (each entry the superlayer of the next) as far as it.
    private func deepestHoveredInTree() -> Layer? {
        var deepest: Layer?
        for entry in hovered.reversed() {
            guard let layer = entry.layer,
                  deepest.map({ layer.superlayer === $0 }) ?? (layer === host?.rootLayer) else { break }
            deepest = layer
        }
        return deepest
    }

    /// Recomputes the cursor: the grabbing layer's, or the hovered one's, inherited upwards.
    func refreshCursor() {
        var node = mouseGrab?.layer.flatMap(attached) ?? hovered.first?.layer.flatMap(attached)
        var wanted = Cursor.default
        while let layer = node {
            if let cursor = layer.cursor {
                wanted = cursor
                break
            }
            node = layer.superlayer
        }
        guard wanted != cursor else { return }
        cursor = wanted
        onCursorChange?(wanted)
    }

    /// Forgets a removed subtree: it loses the focus, the hover and any grab.
    func layerRemoved(_ removed: Layer) {
        gestures.layersRemoved(under: removed)
        if let focus, focus.isDescendant(of: removed) { self.focus(nil, visible: false) }
        // The hover chain runs deepest first: what lies below the removed layer goes with it.
        if let index = hovered.firstIndex(where: { $0.layer === removed }) {
            for entry in hovered[...index] { entry.layer?.isHovered = false }
            hovered.removeFirst(index + 1)
        }
        if let grab = mouseGrab?.layer, grab.isDescendant(of: removed) {
            mouseGrab = nil
            mousePress = nil
            grab.pointerCancelled(pointerEvent(for: grab, at: pointerLocation ?? .zero, source: .mouse, time: 0))
        }
        for (id, touch) in touches {
            guard let handler = touch.handler, handler.isDescendant(of: removed) else { continue }
            touches[id]?.handler = nil
            handler.pointerCancelled(pointerEvent(for: handler, at: touch.location, source: .touch(id: id), time: 0))
        }
        refreshCursor()
    }

    // MARK: Helpers

    private func hitTest(_ point: Point) -> Layer? {
        host?.rootLayer.hitTest(hostPoint: point)
    }

    /// Focuses the nearest focusable layer at or above a pressed one; a press elsewhere keeps
    /// the focus where it is.
    private func focusOnPress(_ hit: Layer?) {
        var node = hit
        while let layer = node {
            if layer.acceptsFocus {
                focus(layer, visible: false)
                return
            }
            node = layer.superlayer
        }
    }

    /// Offers an event to `start` and its ancestors until one handles it; returns that one.
    @discardableResult
    private func bubble(from start: Layer?, _ offer: (Layer) -> Bool) -> Layer? {
        var node = start
        while let layer = node {
            if offer(layer) { return layer }
            node = layer.superlayer
        }
        return nil
    }

    /// `bubble` for positioned events: each layer is offered `point` in its own coordinates,
    /// converted upwards step by step.
    @discardableResult
    private func bubble(from start: Layer?, at point: Point, _ offer: (Layer, Point) -> Bool) -> Layer? {
        guard let start else { return nil }
        var local = start.convertFromHost(point)
        var node: Layer? = start
        while let layer = node {
            if offer(layer, local) { return layer }
            local = layer.convertToSuperlayer(local)
            node = layer.superlayer
        }
        return nil
    }

    /// The monotonic clock in milliseconds, wrapping like compositor timestamps: the time of
    /// events posted without one.
    private static var now: UInt32 { UInt32(truncatingIfNeeded: Monotonic.now / 1_000_000) }

    private func attached(_ layer: Layer) -> Layer? {
        layer.host === host && host != nil ? layer : nil
    }

    /// An event at `point` in surface points, for the recognizers (which localise it).
    private func pointerEvent(at point: Point, button: PointerButton = .left, source: PointerSource,
                              time: UInt32) -> PointerEvent {
        PointerEvent(location: point, hostLocation: point, button: button, source: source, modifiers: modifiers, time: time)
    }

    private func pointerEvent(for layer: Layer, at point: Point, button: PointerButton = .left, source: PointerSource,
                              clickCount: Int = 1, time: UInt32) -> PointerEvent {
        pointerEvent(for: layer, local: layer.convertFromHost(point), at: point, button: button, source: source,
                     clickCount: clickCount, time: time)
    }

    private func pointerEvent(for layer: Layer, local: Point, at point: Point, button: PointerButton = .left,
                              source: PointerSource = .mouse, clickCount: Int = 1, time: UInt32) -> PointerEvent {
        PointerEvent(location: local, hostLocation: point, button: button, source: source,
                     clickCount: clickCount, modifiers: modifiers, time: time)
    }
}

@MainActor
private struct WeakLayer {
    weak var layer: Layer?
    init(_ layer: Layer) { self.layer = layer }
}
