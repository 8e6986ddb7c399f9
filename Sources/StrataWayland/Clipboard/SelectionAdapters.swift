import StrataCore
import StrataPlatform
import SystemPackage
import WaylandClient

// The two selection protocols, each adapted to `SeatSelection`: their objects differ, their
// behaviour does not. What the sources and offers of both have in common is named here once.

/// A selection source of either protocol: offers types, then is asked to send them.
@MainActor
protocol SelectionSourceProxy: AnyObject {
    func offer(mimeType: String) throws(WaylandError)
    func destroy() throws(WaylandError)
    /// Calls `send` for each request for data, and `cancelled` when the source is replaced.
    func listen(send: @escaping @MainActor (String, FileDescriptor) -> Void, cancelled: @escaping @MainActor () -> Void)
}

/// A selection offer of either protocol: lists types, then sends one through a pipe.
@MainActor
protocol SelectionOfferProxy: AnyObject {
    func receive(mimeType: String, fd: FileDescriptor) throws(WaylandError)
    func destroy() throws(WaylandError)
    /// Calls `type` for each MIME type the offer lists.
    func listen(type: @escaping @MainActor (String) -> Void)
}

extension WlDataSource: SelectionSourceProxy {
    func listen(send: @escaping @MainActor (String, FileDescriptor) -> Void, cancelled: @escaping @MainActor () -> Void) {
        addListener { event in
            switch event {
            case let .send(type, fd): send(type, fd)
            case .cancelled: cancelled()
            default: break
            }
        }
    }
}

extension ZwpPrimarySelectionSourceV1: SelectionSourceProxy {
    func listen(send: @escaping @MainActor (String, FileDescriptor) -> Void, cancelled: @escaping @MainActor () -> Void) {
        addListener { event in
            switch event {
            case let .send(type, fd): send(type, fd)
            case .cancelled: cancelled()
            }
        }
    }
}

extension WlDataOffer: SelectionOfferProxy {
    func listen(type: @escaping @MainActor (String) -> Void) {
        addListener { if case let .offer(name) = $0 { type(name) } }
    }
}

extension ZwpPrimarySelectionOfferV1: SelectionOfferProxy {
    func listen(type: @escaping @MainActor (String) -> Void) {
        addListener { if case let .offer(name) = $0 { type(name) } }
    }
}

extension SeatSelection {
    /// The adapter for sources made by `make` and a device's `setSelection`.
    static func adapter<Source: SelectionSourceProxy>(
        session: WaylandSession, make: @escaping () throws(WaylandError) -> Source,
        setSelection: @escaping (Source?, UInt32) throws(WaylandError) -> Void
    ) -> Adapter {
        let connection = session.connection
        return Adapter(
            makeSource: { types, send, cancelled throws(WaylandError) in
                let source = try make()
                for type in types { try source.offer(mimeType: type) }
                source.listen(send: send, cancelled: cancelled)
                return SeatSelection.Source(proxy: source, destroy: { try? source.destroy() })
            },
            setSelection: { source, serial throws(WaylandError) in try setSelection(source?.proxy as? Source, serial) },
            flush: { try? connection.flush() })
    }

    /// A device introduced `offer`: its types are followed until it is selected or let go.
    func introduce(_ offer: some SelectionOfferProxy) {
        let id = ObjectIdentifier(offer)
        offer.listen { [weak self] type in self?.offer(id, type: type) }
        introduce(Offer(id: id, receive: { type, fd throws(WaylandError) in try offer.receive(mimeType: type, fd: fd) },
                        destroy: { try? offer.destroy() }))
    }

    /// The clipboard of `seat`, through `wl_data_device` (version 3: selections only here).
    static func clipboard(manager: WlDataDeviceManager, seat: WlSeat, session: WaylandSession,
                          serial: @escaping () -> UInt32?) throws(WaylandError) -> (SeatSelection, release: () -> Void) {
        let device = try manager.getDataDevice(seat: seat)
        let selection = SeatSelection(name: "clipboard", loop: session.loop, adapter: adapter(
            session: session, make: { () throws(WaylandError) in try manager.createDataSource() },
            setSelection: { source, serial throws(WaylandError) in try device.setSelection(source: source, serial: serial) }),
            serial: serial)
        device.addListener { [weak selection] event in
            switch event {
            case let .dataOffer(offer): selection?.introduce(offer)
            case let .selection(offer): selection?.selected(offer.map(ObjectIdentifier.init))
            // Drag and drop is not taken up: the drag's offer is let go.
            case let .enter(_, _, _, _, offer): if let offer { selection?.discard(ObjectIdentifier(offer)) }
            default: break
            }
        }
        return (selection, { selection.release(); if device.version >= 2 { try? device.release() } })
    }

    /// The primary selection of `seat`, through `zwp_primary_selection_device_v1`.
    static func primary(manager: ZwpPrimarySelectionDeviceManagerV1, seat: WlSeat, session: WaylandSession,
                        serial: @escaping () -> UInt32?) throws(WaylandError) -> (SeatSelection, release: () -> Void) {
        let device = try manager.getDevice(seat: seat)
        let selection = SeatSelection(name: "primary selection", loop: session.loop, adapter: adapter(
            session: session, make: { () throws(WaylandError) in try manager.createSource() },
            setSelection: { source, serial throws(WaylandError) in try device.setSelection(source: source, serial: serial) }),
            serial: serial)
        device.addListener { [weak selection] event in
            switch event {
            case let .dataOffer(offer): selection?.introduce(offer)
            case let .selection(offer): selection?.selected(offer.map(ObjectIdentifier.init))
            }
        }
        return (selection, { selection.release(); try? device.destroy() })
    }
}
