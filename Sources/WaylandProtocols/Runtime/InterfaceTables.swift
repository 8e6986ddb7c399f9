import CWaylandClient
import Glibc
import Locking

/// libwayland's `wl_interface` and `wl_message` tables, built from `InterfaceDescriptor`s.
///
/// libwayland keeps pointers to these for as long as any proxy uses them, so they are allocated
/// once per interface and never freed. Interfaces refer to each other in cycles (`wl_surface`
/// events name `wl_output`, whose own messages may name surfaces), so a table's address is
/// recorded before its messages are filled in.
enum InterfaceTables {
    private static let tables = Locked<[ObjectIdentifier: UnsafeMutablePointer<wl_interface>]>([:])

    static func table(for descriptor: InterfaceDescriptor) -> UnsafePointer<wl_interface> {
        tables.withLock { tables in UnsafePointer(build(descriptor, into: &tables)) }
    }

    private static func build(
        _ descriptor: InterfaceDescriptor,
        into tables: inout [ObjectIdentifier: UnsafeMutablePointer<wl_interface>]
    ) -> UnsafeMutablePointer<wl_interface> {
        if let existing = tables[ObjectIdentifier(descriptor)] { return existing }
        let table = UnsafeMutablePointer<wl_interface>.allocate(capacity: 1)
        tables[ObjectIdentifier(descriptor)] = table

        func messages(_ list: [MessageDescriptor]) -> UnsafeMutablePointer<wl_message>? {
            guard !list.isEmpty else { return nil }
            let messages = UnsafeMutablePointer<wl_message>.allocate(capacity: list.count)
            for (index, message) in list.enumerated() {
                let types = UnsafeMutablePointer<UnsafePointer<wl_interface>?>.allocate(capacity: max(message.types.count, 1))
                types.initialize(to: nil)
                for (slot, type) in message.types.enumerated() {
                    (types + slot).initialize(to: type.map { UnsafePointer(build($0.descriptor, into: &tables)) })
                }
                (messages + index).initialize(to: wl_message(name: strdup(message.name), signature: strdup(message.signature), types: types))
            }
            return messages
        }
        table.initialize(to: wl_interface(
            name: strdup(descriptor.name),
            // A descriptor is public API: an absurd version must not trap.
            version: Int32(clamping: descriptor.version),
            method_count: Int32(descriptor.requests.count),
            methods: messages(descriptor.requests),
            event_count: Int32(descriptor.events.count),
            events: messages(descriptor.events)))
        return table
    }
}
