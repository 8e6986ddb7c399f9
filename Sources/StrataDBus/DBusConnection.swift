import CSDBus
import Glibc
import StrataPlatform
import SystemPackage

/// A connection to a D-Bus bus through sd-bus, driven by a `MainLoop`: its socket is a source of
/// the loop, sd-bus's timeouts are the loop's timers, and every reply, signal and incoming call
/// is handled on the loop's thread, between iterations. Nothing blocks: connecting, calling and
/// subscribing return at once, and the answers come to handlers.
///
/// Every message from the bus is read within `DBusLimits` into `DBusValue`s, and anything that
/// does not fit becomes a `DBusError` for the handler. When the bus goes away, each pending call
/// ends with `disconnected`, `onDisconnect` runs once, and later calls throw `disconnected`.
///
/// Main actor only, as the loop it runs on.
@MainActor
public final class DBusConnection {
    /// The loop the connection runs on.
    public let loop: MainLoop
    /// Called once when the connection is lost (the bus exited, or sent something sd-bus could
    /// not read), after pending calls have ended.
    public var onDisconnect: ((DBusError) -> Void)?
    /// Why the connection ended, once it has; nil while it is open.
    public private(set) var closedError: DBusError?

    private var bus: OpaquePointer?
    private var descriptor: FileDescriptor?
    private var source: MainLoop.Token?
    private var hook: MainLoop.Token?
    private var timer: (token: MainLoop.Token, deadline: UInt64)?
    private var watched: MainLoop.Events = .readable
    /// Pending calls, subscriptions and exported objects; each stays alive here while its sd-bus
    /// slot exists, since the slot's user data points at it unretained.
    private var slots: [ObjectIdentifier: DBusSlot] = [:]
    /// sd-bus must not be re-entered from one of its own callbacks.
    private var isProcessing = false

    /// Connects to the session bus: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
    /// - Throws: `connectionFailed` when neither is set or nothing listens there.
    public static func sessionBus(loop: MainLoop = .main) throws(DBusError) -> DBusConnection {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name) else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }
        if let address = variable("DBUS_SESSION_BUS_ADDRESS") { return try DBusConnection(address: address, loop: loop) }
        if let runtime = variable("XDG_RUNTIME_DIR") { return try DBusConnection(address: "unix:path=\(runtime)/bus", loop: loop) }
        throw DBusError(.connectionFailed, "no session bus: DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are both unset")
    }

    /// Connects to the bus at `address` (`unix:path=/run/user/1000/bus`, `unix:abstract=…`), as a
    /// client that says Hello and gets a unique name.
    /// - Throws: `connectionFailed` when the address is malformed or nothing listens there, or the
    ///   loop's error when the socket cannot be watched.
    public init(address: String, loop: MainLoop = .main) throws(DBusError) {
        self.loop = loop
        guard !address.utf8.contains(0) else { throw DBusError(.connectionFailed, "a bus address cannot contain a NUL byte") }
        var made: OpaquePointer?
        var result = sd_bus_new(&made)
        guard result >= 0, let bus = made else { throw DBusError.library("sd_bus_new", result, code: .connectionFailed) }
        do throws(DBusError) {
            result = address.withCString { sd_bus_set_address(bus, $0) }
            guard result >= 0 else { throw DBusError.library("sd_bus_set_address", result, code: .connectionFailed) }
            _ = sd_bus_set_bus_client(bus, 1)
            // Strata reads no descriptors from peers; refusing them keeps a hostile one from
            // filling this process's table.
            _ = sd_bus_negotiate_fds(bus, 0)
            result = sd_bus_start(bus)
            guard result >= 0 else {
                throw DBusError(.connectionFailed, "cannot connect to the bus at \(LogText.quoted(address)): \(Errno(rawValue: -result))",
                                errno: Errno(rawValue: -result))
            }
            let fd = sd_bus_get_fd(bus)
            guard fd >= 0 else { throw DBusError.library("sd_bus_get_fd", fd, code: .connectionFailed) }
            descriptor = FileDescriptor(rawValue: fd)
            do {
                source = try loop.addSource(FileDescriptor(rawValue: fd), events: .readable) { [weak self] _ in self?.process() }
            } catch {
                throw DBusError(.connectionFailed, "the bus socket cannot be watched: \(error)", errno: error.errno)
            }
        } catch {
            sd_bus_close_unref(bus)
            throw error
        }
        self.bus = bus
        // Calls queue messages sd-bus may not have written yet, and replies may sit read but
        // undispatched: settle both before the loop sleeps.
        hook = loop.addBeforeSleepHook { [weak self] in self?.process() }
        process()
    }

    isolated deinit {
        close()
    }

    /// Whether the connection is open.
    public var isOpen: Bool { bus != nil }

    /// This connection's unique name on the bus (`:1.42`), once the bus has answered Hello.
    public var uniqueName: String? {
        guard let bus else { return nil }
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0 else { return nil }
        return headerField(name)
    }

    /// Closes the connection without waiting: pending calls end with `cancelled`, subscriptions
    /// and exported objects go silently, and `onDisconnect` is not called. Closing twice does
    /// nothing.
    public func close() {
        end(with: DBusError(.cancelled, "the connection was closed"), notify: false)
    }

    // MARK: Calls

    /// Calls `method` with `arguments`, and later `handler` with its reply, read within `limits`:
    /// the values, or a `DBusError` (`remoteError` with the peer's error name, `timedOut` after
    /// `timeout`, `disconnected`, `limitExceeded`, `unexpectedReply`).
    /// - Throws: `invalidArgument` for a malformed name, path or argument, `disconnected` once
    ///   the connection has ended; the handler is then not called.
    @discardableResult
    public func call(_ method: DBusMethod, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25),
                     limits: DBusLimits = .standard,
                     handler: @escaping @MainActor (Result<DBusReply, DBusError>) -> Void) throws(DBusError) -> DBusSlot {
        let bus = try openBus()
        var made: OpaquePointer?
        let names = [method.destination, method.path, method.interface, method.member]
        guard !names.contains(where: { $0.utf8.contains(0) }) else { throw DBusError(.invalidArgument, "a name with a NUL byte") }
        var result = method.destination.withCString { destination in
            method.path.withCString { path in
                method.interface.withCString { interface in
                    method.member.withCString { member in sd_bus_message_new_method_call(bus, &made, destination, path, interface, member) }
                }
            }
        }
        guard result >= 0, let message = made else { throw DBusError.library("sd_bus_message_new_method_call", result, code: .invalidArgument) }
        defer { sd_bus_message_unref(message) }
        try MessageWriter(message: message).append(arguments)

        let microseconds = Self.microseconds(timeout)
        let slot = DBusSlot(connection: self, kind: .reply(handler, limits: limits,
                                                            deadline: Monotonic.now.addingSaturating(microseconds &* 1000)))
        var handle: OpaquePointer?
        result = sd_bus_call_async(bus, &handle, message, { message, userdata, _ in
            DBusSlot.deliver(message, to: userdata)
        }, Unmanaged.passUnretained(slot).toOpaque(), microseconds)
        guard result >= 0, let handle else { throw DBusError.library("sd_bus_call_async", result) }
        adopt(slot, handle: handle)
        return slot
    }

    // MARK: Signals

    /// Calls `handler` with every signal that matches `rule`, until the returned slot is
    /// cancelled. The bus is asked for the match without waiting; if it refuses, the handler gets
    /// that error once. A signal whose values pass `limits` or cannot be read reaches the handler
    /// as an error; the subscription stays.
    /// - Throws: `invalidArgument` for a rule that cannot be sent, `disconnected` once the
    ///   connection has ended.
    @discardableResult
    public func subscribe(to rule: DBusMatchRule, limits: DBusLimits = .standard,
                          handler: @escaping @MainActor (Result<DBusMessage, DBusError>) -> Void) throws(DBusError) -> DBusSlot {
        let bus = try openBus()
        if let problem = rule.problem { throw DBusError(.invalidArgument, problem) }
        let slot = DBusSlot(connection: self, kind: .signal(handler, limits: limits))
        var made: OpaquePointer?
        let result = rule.description.withCString { text in
            sd_bus_add_match_async(bus, &made, text, { message, userdata, _ in
                DBusSlot.deliver(message, to: userdata)
            }, { message, userdata, _ in
                DBusSlot.deliverInstallReply(message, to: userdata)
            }, Unmanaged.passUnretained(slot).toOpaque())
        }
        guard result >= 0, let handle = made else { throw DBusError.library("sd_bus_add_match_async", result, code: .invalidArgument) }
        adopt(slot, handle: handle)
        return slot
    }

    /// Sends a signal from the object at `path`.
    /// - Throws: `invalidArgument` for a malformed name, path or value; `disconnected`.
    public func emitSignal(path: String, interface: String, member: String, _ values: [DBusValue] = []) throws(DBusError) {
        let bus = try openBus()
        guard ![path, interface, member].contains(where: { $0.utf8.contains(0) }) else {
            throw DBusError(.invalidArgument, "a name with a NUL byte")
        }
        var made: OpaquePointer?
        var result = path.withCString { path in
            interface.withCString { interface in member.withCString { member in sd_bus_message_new_signal(bus, &made, path, interface, member) } }
        }
        guard result >= 0, let message = made else { throw DBusError.library("sd_bus_message_new_signal", result, code: .invalidArgument) }
        defer { sd_bus_message_unref(message) }
        try MessageWriter(message: message).append(values)
        result = sd_bus_send(bus, message, nil)
        guard result >= 0 else { throw DBusError.library("sd_bus_send", result) }
    }

    // MARK: Serving

    /// Receives every method call made to the object at `path`, until the returned slot is
    /// cancelled. The handler answers each with `reply` or `replyError`; a call whose arguments
    /// cannot be read within `limits` is answered `InvalidArgs` without reaching it.
    /// - Throws: `invalidArgument` for a malformed path, `disconnected`.
    @discardableResult
    public func exportObject(at path: String, limits: DBusLimits = .standard,
                             handler: @escaping @MainActor (DBusIncomingCall) -> Void) throws(DBusError) -> DBusSlot {
        try export(path, "sd_bus_add_object", limits: limits, handler: handler) { bus, slot, path, userdata, callback in
            sd_bus_add_object(bus, slot, path, callback, userdata)
        }
    }

    /// Receives every method call made to an object below `prefix` (`/org/a11y/atspi/accessible`
    /// serves `/org/a11y/atspi/accessible/12`), and to `prefix` itself, until the returned slot
    /// is cancelled: one handler for a tree of objects that come and go, which reads the path
    /// from `content.path`. A more specific export takes precedence.
    /// - Throws: `invalidArgument` for a malformed path, `disconnected`.
    @discardableResult
    public func exportSubtree(under prefix: String, limits: DBusLimits = .standard,
                              handler: @escaping @MainActor (DBusIncomingCall) -> Void) throws(DBusError) -> DBusSlot {
        try export(prefix, "sd_bus_add_fallback", limits: limits, handler: handler) { bus, slot, path, userdata, callback in
            sd_bus_add_fallback(bus, slot, path, callback, userdata)
        }
    }

    private typealias AddObject = (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>, UnsafePointer<CChar>, UnsafeMutableRawPointer,
                                   sd_bus_message_handler_t) -> Int32

    private func export(_ path: String, _ function: String, limits: DBusLimits, handler: @escaping @MainActor (DBusIncomingCall) -> Void,
                        add: AddObject) throws(DBusError) -> DBusSlot {
        let bus = try openBus()
        guard !path.utf8.contains(0) else { throw DBusError(.invalidArgument, "a path with a NUL byte") }
        let slot = DBusSlot(connection: self, kind: .object(handler, limits: limits))
        var made: OpaquePointer?
        let result = path.withCString { path in
            add(bus, &made, path, Unmanaged.passUnretained(slot).toOpaque(), { message, userdata, _ in
                _ = DBusSlot.deliver(message, to: userdata)
                return 1   // answered (or to be answered) by the handler, never by sd-bus
            })
        }
        guard result >= 0, let handle = made else { throw DBusError.library(function, result, code: .invalidArgument) }
        adopt(slot, handle: handle)
        return slot
    }

    /// Asks the bus for `name` (without queueing behind another owner), then calls `handler`
    /// with whether this connection now owns it.
    /// - Throws: as `call` does.
    @discardableResult
    public func requestName(_ name: String, handler: @escaping @MainActor (Result<Bool, DBusError>) -> Void) throws(DBusError) -> DBusSlot {
        let method = DBusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus", member: "RequestName")
        // DBUS_NAME_FLAG_DO_NOT_QUEUE; the reply is 1 (primary owner) or 4 (already owner).
        return try call(method, [.string(name), .uint32(4)]) { result in
            handler(result.flatMap { reply in
                guard reply.values.count == 1, let code = reply.values[0].uint32 else {
                    return .failure(DBusError(.unexpectedReply, "RequestName did not return one uint32"))
                }
                return .success(code == 1 || code == 4)
            })
        }
    }

    // MARK: Slots

    func openBus() throws(DBusError) -> OpaquePointer {
        guard let bus else { throw closedError ?? DBusError(.disconnected, "the connection is closed") }
        return bus
    }

    private func adopt(_ slot: DBusSlot, handle: OpaquePointer) {
        slot.handle = handle
        slots[ObjectIdentifier(slot)] = slot
    }

    /// Frees `slot`'s sd-bus side. Safe inside the slot's own callback: sd-bus holds a reference
    /// while it runs one.
    func release(_ slot: DBusSlot) {
        if let handle = slot.handle { sd_bus_slot_unref(handle) }
        slot.handle = nil
        slots[ObjectIdentifier(slot)] = nil
    }

    /// Whether the bus was still open when a message arrived: replies sd-bus makes up while
    /// closing mean the connection was lost, not that the peer answered.
    var isClosing: Bool {
        guard let bus else { return true }
        return sd_bus_is_open(bus) <= 0
    }

    // MARK: Driving from the loop

    /// Lets sd-bus read, write, dispatch and expire what is due, then watches for what it needs
    /// next. Bounded per turn so a flood of messages cannot hold the loop.
    private func process() {
        guard let bus, !isProcessing else { return }
        isProcessing = true
        var result: Int32 = 0
        var budget = 256
        // A handler may close the connection: sd-bus survives until its call returns, but the
        // pointer must not be used again after that.
        while budget > 0, self.bus != nil {
            result = sd_bus_process(bus, nil)
            if result <= 0 { break }
            budget -= 1
        }
        isProcessing = false
        guard self.bus != nil else { return }   // a handler closed the connection
        if result < 0 {
            // sd-bus turns a dropped socket into its closing state and answers pending calls; an
            // error here means it is closed, or broken beyond that.
            let code: DBusError.Code = sd_bus_is_open(bus) <= 0 ? .disconnected : .library
            end(with: DBusError(code,
                                "the bus connection ended: \(Errno(rawValue: -result))", errno: Errno(rawValue: -result)), notify: true)
            return
        }
        if budget == 0 { loop.wake() }   // more is waiting: do not sleep on it
        rewatch(bus)
    }

    private func rewatch(_ bus: OpaquePointer) {
        let wanted = sd_bus_get_events(bus)
        var events: MainLoop.Events = []
        if wanted > 0, wanted & Int32(POLLIN) != 0 { events.insert(.readable) }
        if wanted > 0, wanted & Int32(POLLOUT) != 0 { events.insert(.writable) }
        if events != watched, let descriptor {
            do {
                try loop.updateSource(descriptor, events: events)
                watched = events
            } catch {
                end(with: DBusError(.library, "the bus socket cannot be watched: \(error)", errno: error.errno), notify: true)
                return
            }
        }
        var microseconds: UInt64 = .max
        let due = sd_bus_get_timeout(bus, &microseconds) >= 0 && microseconds != .max
        let deadline = microseconds.multipliedReportingOverflow(by: 1000)
        guard due, !deadline.overflow else {
            if let timer { loop.cancelTimer(timer.token) }
            timer = nil
            return
        }
        guard timer?.deadline != deadline.partialValue else { return }
        if let timer { loop.cancelTimer(timer.token) }
        let now = Monotonic.now
        let delay = deadline.partialValue > now ? deadline.partialValue - now : 0
        let token = loop.addTimer(after: .nanoseconds(Int64(clamping: delay))) { [weak self] in
            self?.timer = nil
            self?.process()
        }
        timer = (token, deadline.partialValue)
    }

    /// Ends the connection: stops watching it, fails what is still pending with `error`, and
    /// frees sd-bus's side.
    private func end(with error: DBusError, notify: Bool) {
        guard let bus else { return }
        closedError = error
        if let source { loop.removeSource(source) }
        if let hook { loop.removeHook(hook) }
        if let timer { loop.cancelTimer(timer.token) }
        source = nil
        hook = nil
        timer = nil
        descriptor = nil
        let remaining = slots.values
        slots = [:]
        for slot in remaining {
            if let handle = slot.handle { sd_bus_slot_unref(handle) }
            slot.handle = nil
        }
        self.bus = nil
        sd_bus_close_unref(bus)
        // Pending calls always end; subscriptions hear of a lost bus, not of a close asked for.
        for slot in remaining { slot.fail(with: error, includingSignals: notify) }
        if notify { onDisconnect?(error) }
    }

    /// sd-bus's timeout in microseconds: at least 1 (0 would mean its 25-second default).
    private static func microseconds(_ duration: Duration) -> UInt64 {
        max(Monotonic.nanoseconds(duration) / 1000, 1)
    }
}

/// A pending call, a subscription or an exported object: `cancel()` ends it. The connection
/// keeps it while it is active, so dropping it does not cancel. Main actor only.
@MainActor
public final class DBusSlot {
    enum Kind {
        case reply(@MainActor (Result<DBusReply, DBusError>) -> Void, limits: DBusLimits, deadline: UInt64)
        case signal(@MainActor (Result<DBusMessage, DBusError>) -> Void, limits: DBusLimits)
        case object(@MainActor (DBusIncomingCall) -> Void, limits: DBusLimits)
    }

    private weak var connection: DBusConnection?
    private let kind: Kind
    /// The sd-bus slot, while it exists.
    var handle: OpaquePointer?

    init(connection: DBusConnection, kind: Kind) {
        self.connection = connection
        self.kind = kind
    }

    /// Whether the call still waits for its reply, or the subscription or export is in place.
    public var isActive: Bool { handle != nil }

    /// Ends the slot: a pending call's handler is called with `cancelled`; a subscription or an
    /// export just stops. Cancelling twice, or after the reply, does nothing.
    public func cancel() {
        guard handle != nil else { return }
        connection?.release(self)
        if case let .reply(handler, _, _) = kind { handler(.failure(DBusError(.cancelled, "the call was cancelled"))) }
    }

    /// The connection ended while this slot was active, or the bus refused a subscription.
    func fail(with error: DBusError, includingSignals: Bool = true) {
        switch kind {
        case let .reply(handler, _, _): handler(.failure(error))
        case let .signal(handler, _): if includingSignals { handler(.failure(error)) }
        case .object: break
        }
    }

    /// sd-bus's callbacks land here, on the loop's thread, from inside `sd_bus_process`.
    nonisolated static func deliver(_ message: OpaquePointer?, to userdata: UnsafeMutableRawPointer?) -> Int32 {
        guard let message, let userdata else { return 0 }
        // Pointers are not Sendable; their bits cross into the main actor, which this already is.
        let (messageBits, slotBits) = (UInt(bitPattern: message), UInt(bitPattern: userdata))
        MainActor.assumeIsolated {
            guard let message = OpaquePointer(bitPattern: messageBits), let userdata = UnsafeRawPointer(bitPattern: slotBits) else { return }
            Unmanaged<DBusSlot>.fromOpaque(userdata).takeUnretainedValue().received(message)
        }
        return 0
    }

    /// The bus's answer to AddMatch: only a refusal matters.
    nonisolated static func deliverInstallReply(_ message: OpaquePointer?, to userdata: UnsafeMutableRawPointer?) -> Int32 {
        guard let message, let userdata, sd_bus_message_is_method_error(message, nil) > 0 else { return 0 }
        let (messageBits, slotBits) = (UInt(bitPattern: message), UInt(bitPattern: userdata))
        MainActor.assumeIsolated {
            guard let message = OpaquePointer(bitPattern: messageBits), let userdata = UnsafeRawPointer(bitPattern: slotBits) else { return }
            let slot = Unmanaged<DBusSlot>.fromOpaque(userdata).takeUnretainedValue()
            let error = slot.remoteError(message)
            slot.fail(with: error)
        }
        return 0
    }

    private func received(_ message: OpaquePointer) {
        switch kind {
        case let .reply(handler, limits, deadline):
            let result: Result<DBusReply, DBusError>
            if sd_bus_message_is_method_error(message, nil) > 0 {
                var error = remoteError(message)
                // sd-bus answers for a peer that never did: when the time ran out, or while the
                // connection closes.
                if error.name == DBusErrorName.noReply {
                    if connection?.isClosing ?? true {
                        error = DBusError(.disconnected, "the bus connection ended before the reply")
                    } else if Monotonic.now >= deadline {
                        error = DBusError(.timedOut, "no reply within the call's timeout")
                    }
                }
                result = .failure(error)
            } else {
                var reader = MessageReader(message: message, limits: limits)
                do throws(DBusError) {
                    result = .success(DBusReply(values: try reader.readBody(), sender: headerField(sd_bus_message_get_sender(message))))
                } catch {
                    result = .failure(error)
                }
            }
            connection?.release(self)
            handler(result)
        case let .signal(handler, limits):
            handler(Self.read(message, limits: limits))
        case let .object(handler, limits):
            guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return }
            switch Self.read(message, limits: limits) {
            case let .success(content):
                handler(DBusIncomingCall(message: message, content: content))
            case let .failure(error):
                var answer = sd_bus_error(name: nil, message: nil, _need_free: 0)
                _ = DBusErrorName.invalidArgs.withCString { name in
                    error.message.withCString { text in
                        sd_bus_error_set(&answer, name, text)
                    }
                }
                _ = sd_bus_reply_method_error(message, &answer)
                sd_bus_error_free(&answer)
            }
        }
    }

    private static func read(_ message: OpaquePointer, limits: DBusLimits) -> Result<DBusMessage, DBusError> {
        var reader = MessageReader(message: message, limits: limits)
        do throws(DBusError) {
            let values = try reader.readBody()
            return .success(DBusMessage(sender: headerField(sd_bus_message_get_sender(message)),
                                        path: headerField(sd_bus_message_get_path(message)),
                                        interface: headerField(sd_bus_message_get_interface(message)),
                                        member: headerField(sd_bus_message_get_member(message)), values: values))
        } catch {
            return .failure(error)
        }
    }

    /// The error a reply carries, its text cut to 1 KiB: a peer chooses it.
    private func remoteError(_ message: OpaquePointer) -> DBusError {
        guard let error = sd_bus_message_get_error(message) else {
            return DBusError(.remoteError, "an error reply without an error")
        }
        let name = error.pointee.name.flatMap { String(validatingCString: $0) }
        var text = "the peer replied with an error"
        if let pointer = error.pointee.message {
            let length = strnlen(pointer, 1024)
            let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
            text = String(decoding: bytes, as: UTF8.self)
        }
        return DBusError(.remoteError, text, name: name)
    }
}

/// A method call made to an object this connection exports: answer it once, with `reply` or
/// `replyError`. An unanswered call times out at the caller. Main actor only.
@MainActor
public final class DBusIncomingCall {
    /// The call: its sender, path, interface, method and arguments.
    public let content: DBusMessage
    private var message: OpaquePointer?

    init(message: OpaquePointer, content: DBusMessage) {
        self.message = sd_bus_message_ref(message)
        self.content = content
    }

    isolated deinit {
        if let message { sd_bus_message_unref(message) }
    }

    /// Whether the call still waits for an answer.
    public var isAwaitingReply: Bool { message != nil }

    /// Answers with `values`.
    /// - Throws: `invalidArgument` for values that cannot be sent, or when already answered;
    ///   `library` when sd-bus cannot send it.
    public func reply(_ values: [DBusValue] = []) throws(DBusError) {
        guard let message else { throw DBusError(.invalidArgument, "the call was already answered") }
        var made: OpaquePointer?
        var result = sd_bus_message_new_method_return(message, &made)
        guard result >= 0, let answer = made else { throw DBusError.library("sd_bus_message_new_method_return", result) }
        defer { sd_bus_message_unref(answer) }
        try MessageWriter(message: answer).append(values)
        result = sd_bus_send(nil, answer, nil)
        guard result >= 0 else { throw DBusError.library("sd_bus_send", result) }
        finish()
    }

    /// Answers with the error `name` (`org.freedesktop.DBus.Error.InvalidArgs`…) and `text`.
    /// - Throws: `invalidArgument` for a malformed name or when already answered; `library` when
    ///   sd-bus cannot send it.
    public func replyError(name: String, _ text: String) throws(DBusError) {
        guard let message else { throw DBusError(.invalidArgument, "the call was already answered") }
        guard !name.utf8.contains(0), !text.utf8.contains(0) else { throw DBusError(.invalidArgument, "an error with a NUL byte") }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        // Returns the errno the name maps to, not a failure.
        _ = name.withCString { name in text.withCString { text in sd_bus_error_set(&error, name, text) } }
        guard sd_bus_error_is_set(&error) > 0 else { throw DBusError(.invalidArgument, "cannot make an error named \(LogText.quoted(name))") }
        let result = sd_bus_reply_method_error(message, &error)
        guard result >= 0 else { throw DBusError.library("sd_bus_reply_method_error", result, code: .invalidArgument) }
        finish()
    }

    private func finish() {
        if let message { sd_bus_message_unref(message) }
        message = nil
    }
}
