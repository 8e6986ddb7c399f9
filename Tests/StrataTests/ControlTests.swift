import CoreTestSupport
import RenderTestSupport
import Testing
@testable import Strata

/// Records the events a control sends, by name, in order.
@MainActor
private final class EventLog {
    var names: [String] = []

    static let tracked: [(Control.Events, String)] = [
        (.touchDown, "down"), (.touchDragEnter, "enter"), (.touchDragExit, "exit"), (.touchUpInside, "upInside"),
        (.touchUpOutside, "upOutside"), (.valueChanged, "value"), (.primaryActionTriggered, "primary"),
    ]

    func watch(_ control: Control) {
        for (event, name) in Self.tracked {
            control.addTarget(self, action: { log, _ in log.names.append(name) }, for: event)
        }
    }

    /// The names recorded since the last call.
    func take() -> [String] {
        defer { names = [] }
        return names
    }
}

@MainActor
struct ControlTests {
    /// A 200 × 100 scene with `control` at (20, 20), 100 × 40: its centre is (70, 40) in the scene.
    private func scene<C: Control>(with control: C, log: EventLog? = nil) throws -> HeadlessScene {
        let scene = HeadlessScene(width: 200, height: 100)
        control.frame = Rect(x: 20, y: 20, width: 100, height: 40)
        scene.root.addSublayer(control)
        log?.watch(control)
        try scene.settle()
        return scene
    }

    private let inside = Point(x: 70, y: 40)
    private let outside = Point(x: 170, y: 90)

    private func press(_ scene: HeadlessScene, _ button: PointerButton = .left) {
        scene.host.input.post(.pointerButton(button, isPressed: true))
    }

    private func release(_ scene: HeadlessScene, _ button: PointerButton = .left) {
        scene.host.input.post(.pointerButton(button, isPressed: false))
    }

    private func key(_ scene: HeadlessScene, _ keysym: Keysym, _ state: KeyInput.State = .pressed,
                     modifiers: KeyModifiers = []) {
        scene.host.input.post(.key(KeyInput(keysym: keysym, state: state, modifiers: modifiers)))
    }

    // MARK: Pointer

    @Test func aClickSendsDownThenUpInsideAndThePrimaryAction() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        #expect(button.state == .normal)
        scene.host.input.post(.pointerEntered(inside))
        #expect(button.state == .hovered)
        #expect(scene.host.input.cursor == .pointer)
        press(scene)
        #expect(log.take() == ["down"])
        #expect(button.isHighlighted && button.isTracking)
        #expect(button.state == [.highlighted, .hovered, .focused])
        release(scene)
        #expect(log.take() == ["upInside", "primary"])
        #expect(!button.isHighlighted && !button.isTracking)
    }

    @Test func aTapOnAButtonIsTheButtonsNotItsCardsTapRecognizers() throws {
        let card = Layer()
        card.frame = Rect(x: 0, y: 0, width: 200, height: 100)
        let button = Button(title: "OK"), log = EventLog()
        var cardTaps = 0, cardLongPresses = 0
        card.addGestureRecognizer(TapGestureRecognizer { _ in cardTaps += 1 })
        let long = LongPressGestureRecognizer { if $0.state == .began { cardLongPresses += 1 } }
        long.minimumDuration = 0
        card.addGestureRecognizer(long)
        let scene = HeadlessScene(width: 200, height: 100)
        scene.root.addSublayer(card)
        button.frame = Rect(x: 20, y: 20, width: 100, height: 40)
        card.addSublayer(button)
        log.watch(button)
        try scene.settle()

        // A click on the button: the button's, and the card's tap never hears of it.
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        release(scene)
        #expect(log.take() == ["down", "upInside", "primary"])
        #expect(cardTaps == 0)
        // A click beside it is the card's.
        scene.host.input.post(.pointerMoved(outside))
        press(scene)
        release(scene)
        #expect(cardTaps == 1)
        // Other gestures still see presses on the button: held, it is the card's long press, and
        // the button is cancelled, not clicked.
        scene.host.input.post(.pointerMoved(inside))
        press(scene)
        try scene.step(until: { cardLongPresses == 1 })
        release(scene)
        #expect(log.take() == ["down"])
        #expect(!button.isHighlighted)
    }

    @Test func highlightFollowsADragOutAndBackIn() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        scene.host.input.post(.pointerMoved(Point(x: 75, y: 45)))
        #expect(log.take() == ["down"], "moving inside changes nothing")
        scene.host.input.post(.pointerMoved(outside))
        #expect(log.take() == ["exit"])
        #expect(!button.isHighlighted && !button.isTouchInside && button.isTracking)
        scene.host.input.post(.pointerMoved(Point(x: 180, y: 95)))
        #expect(log.take() == [], "moving outside changes nothing")
        scene.host.input.post(.pointerMoved(inside))
        #expect(log.take() == ["enter"])
        #expect(button.isHighlighted)
        release(scene)
        #expect(log.take() == ["upInside", "primary"])
    }

    @Test func releasingOutsideSendsUpOutsideOnly() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        scene.host.input.post(.pointerMoved(outside))
        release(scene)
        #expect(log.take() == ["down", "exit", "upOutside"])
        #expect(!button.isHighlighted && !button.isTracking)
    }

    @Test func aCancelledPressUnhighlightsAndSendsNothing() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        #expect(log.take() == ["down"])
        scene.host.input.post(.pointerExited)    // the router cancels the grab
        #expect(!button.isHighlighted && !button.isTracking)
        release(scene)
        #expect(log.take() == [])
    }

    @Test func otherButtonsAreIgnored() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene, .right)
        #expect(!button.isHighlighted)
        release(scene, .right)
        // A right click while the left is held belongs to the same press and changes nothing.
        press(scene)
        press(scene, .right)
        release(scene, .right)
        #expect(button.isTracking)
        release(scene)
        #expect(log.take() == ["down", "upInside", "primary"])
    }

    // MARK: Touch

    @Test func aTapActivatesAndATouchCancelDoesNothing() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.touchDown(id: 3, at: inside))
        #expect(button.isHighlighted)
        scene.host.input.post(.touchUp(id: 3))
        #expect(log.take() == ["down", "upInside", "primary"])

        scene.host.input.post(.touchDown(id: 4, at: inside))
        scene.host.input.post(.touchCancelled)
        #expect(log.take() == ["down"])
        #expect(!button.isHighlighted && !button.isTracking)
    }

    @Test func touchesTrackTheFirstFingerWithAMargin() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.touchDown(id: 1, at: inside))
        scene.host.input.post(.touchDown(id: 2, at: Point(x: 30, y: 30)))   // a second finger: ignored
        scene.host.input.post(.touchUp(id: 2))
        #expect(button.isTracking)
        // Within the touch margin (24 points) a finger still counts as inside.
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 130, y: 40)))
        #expect(button.isHighlighted)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 160, y: 40)))
        #expect(!button.isHighlighted)
        scene.host.input.post(.touchMoved(id: 1, to: Point(x: 135, y: 40)))
        scene.host.input.post(.touchUp(id: 1))
        #expect(log.take() == ["down", "exit", "enter", "upInside", "primary"])
    }

    @Test func aControlRemovedMidTouchWorksWhenAddedAgain() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.touchDown(id: 1, at: inside))
        button.removeFromSuperlayer()
        scene.host.input.post(.touchUp(id: 1))    // never reaches a layer out of the tree
        scene.root.addSublayer(button)
        #expect(!button.isTracking && !button.isHighlighted)
        scene.host.input.post(.touchDown(id: 2, at: inside))
        scene.host.input.post(.touchUp(id: 2))
        #expect(log.take() == ["down", "down", "upInside", "primary"])
    }

    // MARK: Keys and focus

    @Test func spaceAndEnterActivateTheFocusedControl() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        key(scene, .space)
        #expect(log.take() == [], "not focused yet")
        key(scene, .tab)
        #expect(button.isFocused && button.isFocusRingVisible)
        #expect(button.state == .focused)
        key(scene, .space)
        key(scene, .space, .repeated)
        key(scene, .space, .released)
        #expect(log.take() == ["primary"], "once per press, not per repeat")
        key(scene, .return)
        key(scene, .keypadEnter)
        #expect(log.take() == ["primary", "primary"])
        key(scene, .return, modifiers: .control)
        key(scene, .a)
        #expect(log.take() == [], "shortcuts and other keys are left alone")
    }

    @Test func activationKeysWaitWhileAPressIsTracked() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        key(scene, .space)
        release(scene)
        #expect(log.take() == ["down", "upInside", "primary"], "one action for one press")
    }

    @Test func aCancelledSliderDragGoesBackToWhereItStarted() throws {
        let slider = Slider(value: 0.5)
        var values: [Double] = []
        slider.addAction(for: .valueChanged) { values.append($0.value) }
        let scene = try scene(with: slider)
        let y = slider.frame.midY
        scene.host.input.post(.touchDown(id: 1, at: Point(x: slider.frame.minX + slider.frame.width * 0.9, y: y)))
        scene.host.input.post(.touchCancelled)
        #expect(slider.value == 0.5)
        #expect(values.count == 2 && values.last == 0.5, "the drag's value, then the restored one: \(values)")
    }

    @Test func aClickFocusesWithoutARing() throws {
        let button = Button(title: "OK")
        let scene = try scene(with: button)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        release(scene)
        #expect(button.isFocused && !button.isFocusRingVisible)
    }

    @Test func aDisabledControlGetsNothing() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        key(scene, .tab)
        #expect(button.isFocused)
        button.isEnabled = false
        #expect(!button.isFocused, "disabling gives the focus up")
        #expect(button.state == .disabled)
        #expect(button.cursor == nil)

        scene.host.input.post(.pointerEntered(inside))
        #expect(button.state == .disabled, "no hover")
        #expect(scene.host.input.cursor == .default)
        press(scene)
        release(scene)
        scene.host.input.post(.touchDown(id: 1, at: inside))
        scene.host.input.post(.touchUp(id: 1))
        key(scene, .tab)
        key(scene, .space)
        button.activate()
        #expect(!button.isFocused && !button.becomeFocused())
        #expect(log.take() == [])

        button.isEnabled = true
        #expect(button.cursor == .pointer)
        press(scene)
        release(scene)
        #expect(log.take() == ["down", "upInside", "primary"])
    }

    @Test func disablingWhileTrackingCancelsThePress() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        button.isEnabled = false
        #expect(!button.isTracking && !button.isHighlighted)
        button.isEnabled = true
        release(scene)
        #expect(log.take() == ["down"])
    }

    // MARK: Target–action

    @Test func aReleasedTargetIsNotCalled() throws {
        let button = Button(title: "OK")
        let scene = try scene(with: button)
        var calls = 0
        weak var gone: EventLog?
        do {
            let target = EventLog()
            gone = target
            button.addTarget(target, action: { _, _ in calls += 1 }, for: .primaryActionTriggered)
            #expect(button.registeredEvents == .primaryActionTriggered)
        }
        #expect(gone == nil, "the control holds its targets weakly")
        #expect(button.registeredEvents == [])
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        release(scene)
        #expect(calls == 0)
    }

    @Test func actionsAndTargetsCanBeRemoved() throws {
        let button = Button(title: "OK"), log = EventLog()
        let scene = try scene(with: button, log: log)
        var closures: [Control.Events] = []
        let identifier = button.addAction(for: [.touchDown, .primaryActionTriggered]) { control in
            closures.append(control.isHighlighted ? .touchDown : .primaryActionTriggered)
        }
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        release(scene)
        #expect(closures == [.touchDown, .primaryActionTriggered], "the control is passed, not captured")
        #expect(log.take() == ["down", "upInside", "primary"])

        button.removeAction(identifier)
        button.removeTarget(log, for: [.touchDown, .touchUpInside])
        press(scene)
        release(scene)
        #expect(closures.count == 2)
        #expect(log.take() == ["primary"])

        button.removeTarget(nil)
        #expect(button.registeredEvents == [])
    }

    // MARK: Rendering

    @Test func stateChangesInOneTurnRenderOnce() throws {
        let button = Button(title: "OK")
        let scene = try scene(with: button)
        let started = scene.host.statistics.displayTasksStarted
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        scene.host.input.post(.pointerMoved(outside))
        scene.host.input.post(.pointerMoved(inside))
        button.isSelected = true
        button.setBackgroundColor(.red, for: .selected)
        button.title = "Changed"
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == started + 1)
        #expect(scene.host.statistics.displayTasksSynchronous == 0, "drawn on a render queue")

        // Setting a state to what it already is draws nothing.
        button.isSelected = true
        button.isEnabled = true
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == started + 1)

        release(scene)
        try scene.settle()
        #expect(scene.host.statistics.displayTasksStarted == started + 2)
    }

    /// A title set on release (a counter) shows in the frame its render lands in: it skips the
    /// release's ease, which a release alone still gets. The injected clock stands still, so a
    /// fade once started is still running when looked at.
    @Test func aNewTitleOnReleaseShowsAtOnceWhereAReleaseAloneFades() throws {
        let clock = InjectedClock()
        for changesTitle in [false, true] {
            let button = Button(title: "Clicked 0 times")
            let scene = try scene(with: button)
            clock.install(on: scene.host)
            if changesTitle {
                button.addAction(for: .primaryActionTriggered) { button in button.title = "Clicked 1 time" }
            }
            scene.host.input.post(.pointerEntered(inside))
            let initial = button.contents
            press(scene)
            // The press's render is shown once the contents are another bitmap (hovering and
            // pressing in one turn render once).
            try scene.step(until: { button.contents !== initial })
            let pressed = button.contents
            release(scene)
            // The release's render is shown once the contents are another bitmap.
            try scene.step(until: { button.contents !== pressed })
            let fading = button.animationKeys.contains("contentsFade")
            #expect(fading == !changesTitle, "title changed: \(changesTitle); fading: \(fading)")
        }
        withExtendedLifetime(clock) {}
    }

    @Test func colorsFallBackByState() {
        let button = Button()
        button.setBackgroundColor(.red, for: .normal)
        button.setBackgroundColor(.green, for: .highlighted)
        button.setBackgroundColor(nil, for: .hovered)
        button.setBackgroundColor(nil, for: [.selected, .hovered])
        #expect(button.backgroundColor(for: [.highlighted, .hovered, .focused]) == .green)
        #expect(button.backgroundColor(for: [.selected, .highlighted]) == .green)
        #expect(button.backgroundColor(for: .hovered) == .red)
        #expect(button.titleColor(for: [.selected, .hovered]) == .white)
        #expect(button.titleColor(for: .disabled) != .white)
    }

    // MARK: Toggle and slider

    @Test func aToggleFlipsOnClickAndSpace() throws {
        let toggle = Toggle(), log = EventLog()
        let scene = try scene(with: toggle, log: log)
        scene.host.input.post(.pointerEntered(inside))
        press(scene)
        #expect(!toggle.isOn, "flips on release")
        release(scene)
        #expect(toggle.isOn)
        #expect(log.take() == ["down", "value", "upInside", "primary"])
        key(scene, .space)
        #expect(!toggle.isOn)
        #expect(log.take() == ["value", "primary"])
        press(scene)
        scene.host.input.post(.pointerMoved(outside))
        release(scene)
        #expect(!toggle.isOn, "released outside: no flip")
        toggle.isOn = true
        #expect(log.take() == ["down", "exit", "upOutside"], "setting isOn sends nothing")
    }

    /// A flip slides the knob on a spring at composition: its presentation passes through the
    /// middle of the track, the knob is never drawn again (only the track, for its new colour),
    /// and it ends at the right, where the pixels show it.
    @Test func aToggleSlidesItsKnobWithoutDrawingIt() throws {
        let toggle = Toggle()
        let scene = try scene(with: toggle)
        let clock = InjectedClock()
        clock.install(on: scene.host)
        let knob = try #require(toggle.sublayers.first)
        let start = knob.presentation().frame.minX
        let displayed = scene.host.statistics.displayTasksStarted

        toggle.isOn = true
        let end = knob.frame.minX
        #expect(end > start + 20, "the model is at the right at once")
        var seen: [Double] = []
        for _ in 0..<40 {
            clock.advance(seconds: 0.016)
            try scene.loop.runOnce(timeout: .milliseconds(5))
            scene.backend.signalFrame()
            try scene.loop.runOnce(timeout: .milliseconds(5))
            seen.append(knob.presentation().frame.minX)
        }
        #expect(seen.contains { $0 > start + 5 && $0 < end - 5 }, "slid through the middle: \(seen)")
        try scene.settle()
        #expect(knob.presentation().frame.minX == end)
        #expect(scene.host.statistics.displayTasksStarted == displayed + 1, "only the track drew again")
        // The knob (white) is at the right of the 100 × 40 control at (20, 20), the track at the left.
        let knobPixel = try #require(scene.pixel(20 + 50 + 18, 40))
        let trackPixel = try #require(scene.pixel(20 + 50 - 18, 40))
        #expect(knobPixel == Color.white.premultipliedARGB && trackPixel != knobPixel)
    }

    /// A slider 100 wide: its thumb's centre runs from x = 14 to 86 in its own coordinates, so
    /// 34 + 72 · value in the scene.
    @Test func aSliderFollowsPressesAndDragsClamped() throws {
        let slider = Slider(value: 0.5), log = EventLog()
        let scene = try scene(with: slider, log: log)
        var values: [Double] = []
        slider.addAction(for: .valueChanged) { slider in values.append(slider.value) }   // typed: a Slider
        // Pressing the track jumps there.
        scene.host.input.post(.pointerEntered(Point(x: 34 + 72 * 0.25, y: 40)))
        press(scene)
        #expect(abs(slider.value - 0.25) < 1e-9)
        #expect(log.take() == ["down", "value"])
        // Dragging on, out of the control and beyond the end, clamps.
        scene.host.input.post(.pointerMoved(Point(x: 34 + 72 * 0.5, y: 40)))
        #expect(abs(slider.value - 0.5) < 1e-9)
        scene.host.input.post(.pointerMoved(Point(x: 190, y: 95)))
        #expect(slider.value == 1)
        scene.host.input.post(.pointerMoved(Point(x: 195, y: 95)))
        #expect(slider.value == 1)
        scene.host.input.post(.pointerMoved(Point(x: 0, y: 40)))
        #expect(slider.value == 0)
        release(scene)
        #expect(log.take() == ["value", "exit", "value", "value", "upOutside"], "one valueChanged per change")
        #expect(values.count == 4 && values.suffix(2) == [1, 0])

        // Grabbing the thumb off-centre does not make it jump.
        scene.host.input.post(.pointerMoved(Point(x: 34 + 5, y: 40)))
        press(scene)
        #expect(slider.value == 0)
        scene.host.input.post(.pointerMoved(Point(x: 34 + 5 + 36, y: 40)))
        #expect(abs(slider.value - 0.5) < 1e-9)
        release(scene)
    }

    @Test func aSliderStepsWithKeysAndRefusesNaN() throws {
        let slider = Slider(value: 5, in: 0...10), log = EventLog()
        let scene = try scene(with: slider, log: log)
        slider.step = 2
        key(scene, .tab)
        key(scene, .right)
        key(scene, .right, .repeated)
        #expect(slider.value == 9)
        key(scene, .up)
        #expect(slider.value == 10)
        key(scene, .up)
        #expect(log.take() == ["value", "value", "value"], "no valueChanged at the end")
        key(scene, .home)
        #expect(slider.value == 0)
        key(scene, .pageUp)
        #expect(slider.value == 10)
        key(scene, .down)
        #expect(slider.value == 8)
        key(scene, .end)
        #expect(slider.value == 10)
        #expect(log.take() == ["value", "value", "value", "value"])

        slider.value = .nan
        #expect(slider.value == 10)
        slider.value = -.infinity
        #expect(slider.value == 0)
        slider.value = 42
        #expect(slider.value == 10)
        slider.maximumValue = .nan
        #expect(slider.maximumValue == 10)
        slider.maximumValue = 4
        #expect(slider.value == 4)
        slider.minimumValue = 6
        #expect(slider.maximumValue == 6 && slider.value == 6)
        slider.step = nil
        slider.minimumValue = 0
        slider.maximumValue = 20
        key(scene, .left)
        #expect(slider.value == 5, "a twentieth of the range by default")
        #expect(log.take() == ["value"], "only the keys send valueChanged")
    }

    @Test func aSliderNotContinuousSendsOnRelease() throws {
        let slider = Slider(value: 0), log = EventLog()
        slider.isContinuous = false
        let scene = try scene(with: slider, log: log)
        scene.host.input.post(.pointerEntered(Point(x: 34 + 36, y: 40)))
        press(scene)
        scene.host.input.post(.pointerMoved(Point(x: 34 + 72, y: 40)))
        #expect(slider.value == 1)
        release(scene)
        #expect(log.take() == ["down", "value", "upInside", "primary"])
    }

    // MARK: Goldens

    /// Bold DejaVu Sans alone, so titles render the same everywhere.
    private static let boldFonts: FontLibrary = {
        do {
            return try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"])
        } catch {
            fatalError("the pinned bold font is missing: install fonts-dejavu-core (\(error))")
        }
    }()

    /// A 160 × 56 scene at 2× with a 128 × 40 button in the middle, put in a state by `setUp`
    /// through real input where there is input for it.
    private func golden(_ name: String, image: Bitmap? = nil, title: String = "Continue",
                        _ setUp: (Button, HeadlessScene) -> Void = { _, _ in }) throws {
        let scene = HeadlessScene(width: 160, height: 56, scale: 2, background: .white)
        let button = Button(title: title, image: image)
        button.fontLibrary = Self.boldFonts
        button.frame = Rect(x: 16, y: 8, width: 128, height: 40)
        scene.root.addSublayer(button)
        setUp(button, scene)
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "button-\(name)")
    }

    @Test func goldenNormal() throws { try golden("normal") }

    @Test func goldenHovered() throws {
        try golden("hovered") { _, scene in scene.host.input.post(.pointerEntered(Point(x: 80, y: 28))) }
    }

    @Test func goldenHighlighted() throws {
        try golden("highlighted") { button, scene in
            scene.host.input.post(.pointerEntered(Point(x: 80, y: 28)))
            scene.host.input.post(.pointerButton(.left, isPressed: true))
            #expect(button.state.contains(.highlighted))
        }
    }

    @Test func goldenSelected() throws {
        try golden("selected") { button, _ in button.isSelected = true }
    }

    @Test func goldenDisabled() throws {
        try golden("disabled") { button, _ in button.isEnabled = false }
    }

    @Test func goldenFocused() throws {
        try golden("focused") { button, scene in
            scene.host.input.post(.key(KeyInput(keysym: .tab, state: .pressed)))
            #expect(button.isFocusRingVisible)
        }
    }

    @Test func goldenWithImage() throws {
        // A 16-point plus sign at 2×: white bars on clear.
        let icon = try Bitmap(width: 32, height: 32)
        let canvas = Canvas(bitmap: icon)
        canvas.fill(Rect(x: 14, y: 4, width: 4, height: 24), color: .white, cornerRadius: 2)
        canvas.fill(Rect(x: 4, y: 14, width: 24, height: 4), color: .white, cornerRadius: 2)
        try golden("image", image: icon, title: "New file") { button, _ in
            button.imageSize = Size(width: 16, height: 16)
        }
    }
}

extension Keysym {
    fileprivate static let a = Keysym(rawValue: 0x61)
}
