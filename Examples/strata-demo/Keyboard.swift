// The demo's keyboard and screen-reader side: the spring card is a Tab stop with a focus ring
// when the keyboard reached it, and moves and is pressed from the keyboard as it is with the
// pointer.
import Strata

/// The card that follows the pointer on a spring: a Tab stop that the arrow keys move as a drag
/// does (Shift for longer steps), and that Space or Enter presses as the pointer's button does,
/// growing while the key is held. Presses and moves of the pointer go on to the stage.
@MainActor
final class SpringCard: AsyncLayer {
    /// Asks for the card to move by an offset, in points.
    var onStep: ((Point) -> Void)?
    /// Asks for the card to show it is pressed, or not.
    var onPress: ((Bool) -> Void)?
    /// Releases a press made by an assistive technology's action.
    var schedule: ((Duration, @escaping @MainActor () -> Void) -> Void)?
    private let focusRing = FocusRing()
    private var pressedByKey = false

    override var acceptsFocus: Bool { true }

    override func focusChanged() {
        super.focusChanged()
        focusRing.update(on: self)
        if !isFocused, pressedByKey {
            pressedByKey = false
            onPress?(false)
        }
    }

    override func boundsSizeChanged() {
        super.boundsSizeChanged()
        focusRing.update(on: self)
    }

    override func keyPressed(_ event: KeyEvent) -> Bool {
        guard event.modifiers.isDisjoint(with: [.control, .alt, .logo]) else { return false }
        let step = event.modifiers.contains(.shift) ? 96.0 : 24.0
        switch event.keysym {
        case .left: onStep?(Point(x: -step, y: 0))
        case .right: onStep?(Point(x: step, y: 0))
        case .up: onStep?(Point(x: 0, y: -step))
        case .down: onStep?(Point(x: 0, y: step))
        case .space, .return, .keypadEnter:
            if !event.isRepeat, !pressedByKey {
                pressedByKey = true
                onPress?(true)
            }
        default: return false
        }
        return true
    }

    override func keyReleased(_ event: KeyEvent) -> Bool {
        guard pressedByKey, [.space, .return, .keypadEnter].contains(event.keysym) else { return false }
        pressedByKey = false
        onPress?(false)
        return true
    }

    /// A button to assistive technologies, named by what it shows and described by what it
    /// does; its action presses it briefly, as a click does. The description is not a tool tip:
    /// the card sits under the resting pointer it follows, so a tool tip would always be up.
    override var accessibilityElement: AccessibilityElement? {
        if let accessibility { return accessibility }
        return AccessibilityElement(role: .button, label: "Spring · 弹簧", help: Self.help, states: .focusable, actions: [
            AccessibilityAction("click", description: "Press the card") { [weak self] in self?.pressBriefly() },
        ])
    }

    override var hasAccessibilityElement: Bool { true }

    static let help = "Follows the pointer on a spring. Arrow keys move it; Space or Enter presses it."

    private func pressBriefly() {
        onPress?(true)
        schedule?(.milliseconds(200)) { [weak self] in self?.onPress?(false) }
    }
}
