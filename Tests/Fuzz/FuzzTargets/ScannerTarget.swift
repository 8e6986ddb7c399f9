import Foundation
import WaylandScanner

extension FuzzTarget {
    /// The protocol scanner on arbitrary XML: it parses or throws, and whatever it parses it can
    /// generate Swift for or refuse with an error.
    public static let scanner = FuzzTarget(name: "scanner") { bytes in
        guard let spec = try? ProtocolParser.parse(Data(bytes), fileName: "fuzz.xml") else { return }
        _ = try? SwiftGenerator(protocols: [spec]).generate(spec, sourceName: "fuzz.xml")
    }
}
