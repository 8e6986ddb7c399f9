import Logging
import StrataCore
import StrataPlatform
import WaylandClient

/// One `wl_seat`: a group of input devices (a pointer, a keyboard, a touch screen) that the
/// compositor may add and take away at any time. Each device's events go to the Strata window
/// they are for, as `InputEvent`s into its `LayerHost`'s `InputRouter`. Events for surfaces
/// Strata did not make (an embedding host's, say) are ignored. Main actor only.
@MainActor
public final class Seat {
    /// The bound `wl_seat`.
    public let proxy: WlSeat
    /// The registry name of the seat's global.
    public let globalName: UInt32
    /// The seat's name, such as "seat0", once the compositor sent it (version 2).
    public private(set) var name: String?
    /// The devices the compositor last said the seat has (bits Strata does not know dropped).
    public private(set) var capabilities: WlSeat.Capability = []
    /// The pointer, while the seat has one.
    public private(set) var pointer: SeatPointer?
    /// The touch screen, while the seat has one.
    public private(set) var touch: SeatTouch?
    /// The keyboard, while the seat has one.
    private(set) var keyboard: SeatKeyboard?
    /// Whether the seat has a keyboard now.
    public var hasKeyboard: Bool { keyboard != nil }
    /// Called when the compositor's keymap cannot be used; the keyboard then works with a keymap
    /// built from the environment's layout names. The problem is logged (`strata.input`) too.
    public var onKeymapProblem: ((KeymapError) -> Void)?
    /// The serial of the last button press or touch down delivered: what an interactive move or
    /// resize (`xdg_toplevel.move`) must quote.
    public private(set) var lastPressSerial: UInt32?
    /// The serial of the last key, button press, touch down or keyboard enter: what setting the
    /// clipboard or the primary selection must quote.
    public private(set) var lastInputSerial: UInt32?
    /// The seat's clipboard and primary selection, when the compositor offers them.
    private(set) var clipboardSelection: SeatSelection?
    private(set) var primarySelection: SeatSelection?
    private var releaseSelections: [() -> Void] = []
    /// The seat's text input, when the compositor offers input methods.
    private(set) var textInput: TextInputConnection?
    /// Called after the capabilities or the name change.
    public var onChange: (() -> Void)?

    private weak var session: WaylandSession?
    /// The last compositor timestamp seen, for events that carry none (enter, leave).
    private var lastTime: UInt32?
    private var isRemoved = false

    init(proxy: WlSeat, globalName: UInt32, session: WaylandSession) {
        self.proxy = proxy
        self.globalName = globalName
        self.session = session
        proxy.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .capabilities(capabilities):
                capabilitiesChanged(capabilities)
            case let .name(name):
                // A name is for people; a hostile one is cut short rather than kept whole.
                self.name = String(name.prefix(256))
            }
            onChange?()
        }
    }

    /// Makes the seat's clipboard and primary selection devices, when the compositor has their
    /// managers. Failures leave the clipboard in memory, logged.
    func bindSelections(session: WaylandSession) {
        let serial = { [weak self] in self?.lastInputSerial }
        do throws(WaylandError) {
            if let manager = session.dataDeviceManager {
                let (selection, release) = try SeatSelection.clipboard(manager: manager, seat: proxy, session: session, serial: serial)
                clipboardSelection = selection
                releaseSelections.append(release)
            }
            if let manager = session.primarySelectionManager {
                let (selection, release) = try SeatSelection.primary(manager: manager, seat: proxy, session: session, serial: serial)
                primarySelection = selection
                releaseSelections.append(release)
            }
        } catch {
            selectionLog.error("the seat's clipboard devices could not be made; copy and paste stay inside the app: \(error)")
        }
    }

    /// Makes the seat's text input, when the compositor has a text input manager. A failure
    /// leaves text fields taking keys only, logged.
    func bindTextInput(session: WaylandSession) {
        guard let manager = session.textInputManager else { return }
        do throws(WaylandError) {
            let proxy = try manager.getTextInput(seat: self.proxy)
            let connection = TextInputConnection(proxy: proxy) { [weak session] surface in
                surface.flatMap { session?.client(for: $0.id)?.host }
            }
            proxy.addListener { [weak connection] event in connection?.handle(event) }
            textInput = connection
        } catch {
            Logger(label: "strata.input").error("the seat's text input could not be made; input methods cannot reach text fields: \(error)")
        }
    }

    /// The seat's global went away: its devices end, and the seat is released.
    func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        for release in releaseSelections { release() }
        releaseSelections = []
        textInput?.release()
        textInput = nil
        capabilitiesChanged([])
        if proxy.version >= 5 { try? proxy.release() }
    }

    /// A surface was destroyed: nothing more is delivered to it, even if its id is reused.
    func forget(surface: UInt32) {
        pointer?.forget(surface: surface)
        touch?.forget(surface: surface)
        keyboard?.forget(surface: surface)
    }

    private func capabilitiesChanged(_ new: WlSeat.Capability) {
        guard !isRemoved || new.isEmpty, let session else { return }
        capabilities = new.intersection([.pointer, .keyboard, .touch])

        if capabilities.contains(.pointer), pointer == nil, let proxy = try? proxy.getPointer() {
            pointer = SeatPointer(proxy: proxy, session: session) { [weak self] in self?.route($0) }
        } else if !capabilities.contains(.pointer), let old = pointer {
            pointer = nil
            old.release()
        }

        if capabilities.contains(.touch), touch == nil, let proxy = try? proxy.getTouch() {
            touch = SeatTouch(proxy: proxy) { [weak self] in self?.route($0) }
        } else if !capabilities.contains(.touch), let old = touch {
            touch = nil
            old.release()
        }

        if capabilities.contains(.keyboard), keyboard == nil, let proxy = try? proxy.getKeyboard() {
            let keyboard = SeatKeyboard(proxy: proxy, loop: session.loop) { [weak self] surface, event, time in
                self?.route(SurfaceInput(surface: surface, event: event, time: time))
            }
            keyboard.onProblem = { [weak self] in self?.onKeymapProblem?($0) }
            keyboard.onSerial = { [weak self] in self?.lastInputSerial = $0 }
            self.keyboard = keyboard
        } else if !capabilities.contains(.keyboard), let old = keyboard {
            keyboard = nil
            old.release()
        }
    }

    /// Delivers one device event to the Strata surface it is for.
    func route(_ input: SurfaceInput) {
        if let time = input.time { lastTime = time }
        switch input.event {
        case .pointerButton(_, isPressed: true), .touchDown:
            if let serial = input.serial {
                lastPressSerial = serial
                lastInputSerial = serial
            }
        default:
            break
        }
        guard let session, let client = session.client(for: input.surface) else { return }
        // Enter and leave carry no time: the last one seen, or the router's clock before any.
        client.deliver(input.event, time: input.time ?? lastTime, seat: self)
    }
}

private let selectionLog = Logger(label: "strata.clipboard")
