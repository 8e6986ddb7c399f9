import Logging
import StrataCore
import StrataPlatform
import SystemPackage
import WaylandClient

/// One seat's selection, as a `ClipboardBackend`: the clipboard (`wl_data_device`) or the
/// primary selection (`zwp_primary_selection_device_v1`), which work alike and differ only in
/// their objects, so each is an adapter of closures around this one core.
///
/// Another client's offer is tracked from its introduction, with the MIME types it lists, and
/// becomes the selection on `selection`. Reading it asks for a type over a pipe and receives it
/// through `PipeTransfer`, bounded in bytes and by an idle timeout. Offering makes a source for
/// every type, answers each `send` from memory through a pipe of its own, and quotes the seat's
/// last input serial. Every count and string the compositor or a peer sends is bounded.
/// Main actor only.
@MainActor
final class SeatSelection: ClipboardBackend {
    /// A peer's offer, through the adapter.
    struct Offer {
        let id: ObjectIdentifier
        var types: [String] = []
        let receive: (_ type: String, _ fd: FileDescriptor) throws(WaylandError) -> Void
        let destroy: () -> Void
    }

    /// A source this app made, through the adapter.
    struct Source {
        /// The protocol's source object.
        let proxy: AnyObject
        var id: ObjectIdentifier { ObjectIdentifier(proxy) }
        let destroy: () -> Void
    }

    /// What the adapter does with its protocol's objects.
    struct Adapter {
        /// Makes a source offering `types`; `send` and `cancelled` are called for its events.
        var makeSource: (_ types: [String], _ send: @escaping @MainActor (String, FileDescriptor) -> Void,
                         _ cancelled: @escaping @MainActor () -> Void) throws(WaylandError) -> Source
        /// Sets the seat's selection to a source (nil clears it), quoting an input serial.
        var setSelection: (_ source: Source?, _ serial: UInt32) throws(WaylandError) -> Void
        /// Sends the queued requests.
        var flush: () -> Void
    }

    /// The most MIME types kept per offer, and the longest type name: a peer cannot make either grow.
    static let maximumTypes = 64
    static let maximumTypeLength = 256
    /// How long a transfer may go without a byte before it is abandoned.
    static let idleTimeout: Duration = .seconds(3)

    var contentChanged: (@MainActor () -> Void)?
    private let adapter: Adapter
    private let loop: MainLoop
    private let serial: () -> UInt32?
    private let name: String
    /// Offers introduced and not yet made the selection (or dropped), by identity.
    private var introduced: [ObjectIdentifier: Offer] = [:]
    /// The peer's offer that is the selection now.
    private var current: Offer?
    /// This app's source and what it offers.
    private var source: (source: Source, content: ClipboardContent)?

    init(name: String, loop: MainLoop, adapter: Adapter, serial: @escaping () -> UInt32?) {
        self.name = name
        self.loop = loop
        self.adapter = adapter
        self.serial = serial
    }

    var offeredTypes: [String] { current?.types ?? [] }

    // MARK: Events from the adapter

    /// The compositor introduced an offer (`data_offer`).
    func introduce(_ offer: Offer) {
        // A peer cannot pile up offers: at most eight wait to be selected.
        if introduced.count >= 8, let oldest = introduced.keys.first {
            introduced.removeValue(forKey: oldest)?.destroy()
        }
        introduced[offer.id] = offer
    }

    /// An introduced offer that will not be the selection (a drag's): let go at once.
    func discard(_ id: ObjectIdentifier) {
        introduced.removeValue(forKey: id)?.destroy()
    }

    /// An introduced offer listed a MIME type.
    func offer(_ id: ObjectIdentifier, type: String) {
        guard var offer = introduced[id] ?? (current?.id == id ? current : nil) else { return }
        guard offer.types.count < Self.maximumTypes, type.utf8.count <= Self.maximumTypeLength, !offer.types.contains(type) else { return }
        offer.types.append(type)
        if current?.id == id { current = offer } else { introduced[id] = offer }
    }

    /// The selection changed to an introduced offer, or to none.
    func selected(_ id: ObjectIdentifier?) {
        if let old = current, old.id != id { old.destroy() }
        current = id.flatMap { introduced.removeValue(forKey: $0) } ?? (current?.id == id ? current : nil)
        // Offers introduced and never selected are of no more use.
        for offer in introduced.values where offer.id != current?.id { offer.destroy() }
        introduced = [:]
        // Whether this app still owns the selection is told by its source's cancellation, not
        // here: its own offer comes back as the selection too.
    }

    // MARK: ClipboardBackend

    func offer(_ content: ClipboardContent?) {
        withdrawSource()
        guard let content else {
            guard let serial = serial() else { return }
            do throws(WaylandError) {
                try setSelection(nil, serial: serial)
            } catch {
                log.warning("\(name): the offer could not be withdrawn: \(error)")
            }
            return
        }
        guard let serial = serial() else {
            log.warning("\(name): nothing offered, since the seat has had no input to quote a serial from")
            return
        }
        do throws(WaylandError) {
            let types = Array(content.data.keys).sorted()
            // The source's events name it by the identity the adapter gives it, once made.
            let identity = SourceIdentity()
            let made = try adapter.makeSource(types, { [weak self] type, fd in self?.send(type, fd, from: identity.id) },
                                              { [weak self] in self?.cancelled(identity.id) })
            identity.id = made.id
            source = (made, content)
            try setSelection(made, serial: serial)
        } catch {
            log.warning("\(name): the offer could not be made: \(error)")
        }
    }

    func receive(_ type: String, maximumBytes: Int, _ completion: @escaping @MainActor (Result<[UInt8], StrataError>) -> Void) {
        guard let offer = current, offer.types.contains(type) else {
            completion(.failure(StrataError(.notAvailable, "the \(name) does not offer \(type)")))
            return
        }
        let pipe: (read: FileDescriptor, write: FileDescriptor)
        do {
            pipe = try PipeTransfer.makePipe()
        } catch {
            completion(.failure(error))
            return
        }
        do throws(WaylandError) {
            try offer.receive(type, pipe.write)
        } catch {
            _ = try? pipe.write.close()
            _ = try? pipe.read.close()
            completion(.failure(StrataError(.notAvailable, "the \(name)'s offer could not be read: \(error)")))
            return
        }
        // libwayland sent a duplicate; this end must close, or the read never sees the end.
        _ = try? pipe.write.close()
        adapter.flush()
        PipeTransfer.receive(from: pipe.read, loop: loop, maximumBytes: maximumBytes, idleTimeout: Self.idleTimeout) { result in
            completion(result)
        }
    }

    // MARK: This app's source

    private func setSelection(_ source: Source?, serial: UInt32) throws(WaylandError) {
        try adapter.setSelection(source, serial)
        adapter.flush()
    }

    /// A peer asked for this app's content as `type`: sent from memory, never blocking.
    private func send(_ type: String, _ fd: FileDescriptor, from id: ObjectIdentifier?) {
        guard let source, source.source.id == id, let bytes = source.content.data[type] else { return }
        // The descriptor is the proxy's only while the listener runs: the transfer takes a copy.
        let copy: FileDescriptor
        do {
            copy = try fd.duplicate()
        } catch {
            log.warning("\(name): a request for \(type) could not be answered: its descriptor could not be copied (\(error))")
            return
        }
        PipeTransfer.send(bytes, to: copy, loop: loop, idleTimeout: Self.idleTimeout) { [name] error in
            if let error { log.info("\(name): a peer's read of \(type) ended early: \(error)") }
        }
    }

    /// The compositor cancelled a source: replaced by another client's selection, or by ours.
    private func cancelled(_ id: ObjectIdentifier?) {
        guard let source, source.source.id == id else { return }
        withdrawSource()
        contentChanged?()
    }

    private func withdrawSource() {
        source?.source.destroy()
        source = nil
    }

    func release() {
        withdrawSource()
        current?.destroy()
        current = nil
        for offer in introduced.values { offer.destroy() }
        introduced = [:]
    }
}

private let log = Logger(label: "strata.clipboard")

/// Which source a callback belongs to, filled in once the source exists.
@MainActor
private final class SourceIdentity {
    var id: ObjectIdentifier?
}
