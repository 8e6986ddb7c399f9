import StrataCore
import StrataPlatform
import WaylandClient

// The two selection protocols, each adapted to `SeatSelection`: their objects differ, their
// behaviour does not.

extension SeatSelection {
    /// The clipboard of `seat`, through `wl_data_device` (version 3: selections only here).
    static func clipboard(manager: WlDataDeviceManager, seat: WlSeat, session: WaylandSession,
                          serial: @escaping () -> UInt32?) throws(WaylandError) -> (SeatSelection, release: () -> Void) {
        let device = try manager.getDataDevice(seat: seat)
        let connection = session.connection
        let selection = SeatSelection(name: "clipboard", loop: session.loop, adapter: Adapter(
            makeSource: { types, send, cancelled throws(WaylandError) in
                let source = try manager.createDataSource()
                for type in types { try source.offer(mimeType: type) }
                source.addListener { event in
                    switch event {
                    case let .send(type, fd): send(type, fd)
                    case .cancelled: cancelled()
                    default: break
                    }
                }
                return Source(proxy: source, destroy: { try? source.destroy() })
            },
            setSelection: { source, serial throws(WaylandError) in
                try device.setSelection(source: source?.proxy as? WlDataSource, serial: serial)
            },
            flush: { try? connection.flush() }), serial: serial)
        device.addListener { [weak selection] event in
            guard let selection else { return }
            switch event {
            case let .dataOffer(offer):
                let id = ObjectIdentifier(offer)
                offer.addListener { [weak selection] event in
                    if case let .offer(type) = event { selection?.offer(id, type: type) }
                }
                selection.introduce(Offer(id: id, receive: { type, fd throws(WaylandError) in try offer.receive(mimeType: type, fd: fd) },
                                          destroy: { try? offer.destroy() }))
            case let .selection(offer):
                selection.selected(offer.map(ObjectIdentifier.init))
            case let .enter(_, _, _, _, offer):
                // Drag and drop is not taken up: the offer is let go.
                if let offer { selection.discard(ObjectIdentifier(offer)) }
            default:
                break
            }
        }
        return (selection, { selection.release(); if device.version >= 2 { try? device.release() } })
    }
}

extension SeatSelection {
    /// The primary selection of `seat`, through `zwp_primary_selection_device_v1`.
    static func primary(manager: ZwpPrimarySelectionDeviceManagerV1, seat: WlSeat, session: WaylandSession,
                        serial: @escaping () -> UInt32?) throws(WaylandError) -> (SeatSelection, release: () -> Void) {
        let device = try manager.getDevice(seat: seat)
        let connection = session.connection
        let selection = SeatSelection(name: "primary selection", loop: session.loop, adapter: Adapter(
            makeSource: { types, send, cancelled throws(WaylandError) in
                let source = try manager.createSource()
                for type in types { try source.offer(mimeType: type) }
                source.addListener { event in
                    switch event {
                    case let .send(type, fd): send(type, fd)
                    case .cancelled: cancelled()
                    }
                }
                return Source(proxy: source, destroy: { try? source.destroy() })
            },
            setSelection: { source, serial throws(WaylandError) in
                try device.setSelection(source: source?.proxy as? ZwpPrimarySelectionSourceV1, serial: serial)
            },
            flush: { try? connection.flush() }), serial: serial)
        device.addListener { [weak selection] event in
            guard let selection else { return }
            switch event {
            case let .dataOffer(offer):
                let id = ObjectIdentifier(offer)
                offer.addListener { [weak selection] event in
                    if case let .offer(type) = event { selection?.offer(id, type: type) }
                }
                selection.introduce(Offer(id: id, receive: { type, fd throws(WaylandError) in try offer.receive(mimeType: type, fd: fd) },
                                          destroy: { try? offer.destroy() }))
            case let .selection(offer):
                selection.selected(offer.map(ObjectIdentifier.init))
            }
        }
        return (selection, { selection.release(); try? device.destroy() })
    }
}
