// wayland-info: connects to the compositor and prints its globals, their versions, the highest
// version Strata's generated bindings know, and the wl_shm pixel formats.
import Glibc
import WaylandClient

@MainActor
func run() throws(WaylandError) {
    let connection = try Connection.connect()
    let supported: [String: UInt32] = Dictionary(
        uniqueKeysWithValues: Bindings.all.map { ($0.descriptor.name, $0.descriptor.version) })

    print("interface".padding(40) + "name".padding(6) + "offered".padding(9) + "bindings know")
    for global in connection.registry.globals {
        let binds = supported[global.interface].map { String($0) } ?? "-"
        print(global.interface.padding(40) + String(global.name).padding(6) + String(global.version).padding(9) + binds)
    }

    var formats: [WlShm.Format] = []
    let shm = try connection.registry.bind(WlShm.self, maxVersion: 1)
    shm.addListener { event in
        if case let .format(format) = event { formats.append(format) }
    }
    try connection.roundtrip()
    let names = formats.map { Bindings.formatName($0) }
    print("\nwl_shm formats (\(formats.count)): " + names.joined(separator: " "))
}

enum Bindings {
    /// The interfaces Strata has bindings for.
    static let all: [any WaylandInterface.Type] = [
        WlCompositor.self, WlSubcompositor.self, WlShm.self, WlSeat.self, WlOutput.self, WlDataDeviceManager.self,
        XdgWmBase.self, ZxdgDecorationManagerV1.self, WpViewporter.self, WpFractionalScaleManagerV1.self,
        WpPresentation.self,
    ]

    /// A DRM fourcc as its four letters, or the two wl_shm-only names.
    static func formatName(_ format: WlShm.Format) -> String {
        switch format {
        case .argb8888: return "ARGB8888"
        case .xrgb8888: return "XRGB8888"
        default:
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: format.rawValue >> ($0 * 8)) }
            return String(decoding: bytes, as: UTF8.self).trimmingSpaces()
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
    func trimmingSpaces() -> String { String(reversed().drop { $0 == " " }.reversed()) }
}

do throws(WaylandError) {
    try run()
} catch {
    let line = "wayland-info: \(error.message)\n"
    _ = write(STDERR_FILENO, line, line.utf8.count)
    exit(1)
}
