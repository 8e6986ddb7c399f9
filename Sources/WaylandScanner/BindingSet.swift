import Foundation

/// The complete generated output for a folder of protocol files: one Swift file per XML file.
/// Writing and drift checking share this, so the check compares exactly what would be written.
public struct BindingSet: Equatable, Sendable {
    /// Swift file name → contents.
    public var files: [String: String]

    /// The bindings of `WaylandProtocols` for the protocols in `folder`.
    public static func generate(fromProtocolsIn folder: URL) throws -> BindingSet {
        try generate(fromProtocolsIn: folder, referencing: [], placement: .waylandProtocols)
    }

    /// The bindings `placement` describes, its folders taken relative to `root`: for a test module
    /// beside `WaylandProtocols` when the placement extends it.
    public static func generate(_ placement: SwiftGenerator.Placement, in root: URL) throws -> BindingSet {
        let referenced = try placement.extendedProtocolFolder.map { folder in
            try protocols(in: root.appendingPathComponent(folder)).map(\.spec)
        } ?? []
        return try generate(fromProtocolsIn: root.appendingPathComponent(placement.protocolFolder), referencing: referenced,
                            placement: placement)
    }

    private static func generate(fromProtocolsIn folder: URL, referencing referenced: [ProtocolSpec],
                                 placement: SwiftGenerator.Placement) throws -> BindingSet {
        let sources = try protocols(in: folder)
        let generator = SwiftGenerator(protocols: sources.map(\.spec), referencing: referenced, placement: placement)
        var files: [String: String] = [:]
        for (name, spec) in sources {
            files[SwiftGenerator.fileName(for: spec)] = try generator.generate(spec, sourceName: name)
        }
        return BindingSet(files: files)
    }

    /// The protocol files in `folder`, by name.
    private static func protocols(in folder: URL) throws -> [(name: String, spec: ProtocolSpec)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".xml") }.sorted()
        guard !names.isEmpty else {
            throw ScannerError(file: folder.path, line: 0, message: "no protocol XML files")
        }
        return try names.map { ($0, try ProtocolParser.parse(contentsOf: folder.appendingPathComponent($0))) }
    }

    /// Replaces every `.swift` file in `folder` with this set.
    public func write(to folder: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        for stale in try manager.contentsOfDirectory(atPath: folder.path) where stale.hasSuffix(".swift") && files[stale] == nil {
            try manager.removeItem(at: folder.appendingPathComponent(stale))
        }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: folder.appendingPathComponent(name), options: .atomic)
        }
    }

    /// One line per file that differs between this set and `folder`; empty when they agree.
    public func drift(against folder: URL) throws -> [String] {
        let present = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".swift") })
        var lines: [String] = []
        for name in Set(files.keys).union(present).sorted() {
            let committed = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            switch (files[name], committed) {
            case (nil, _): lines.append("\(name): committed but no protocol produces it")
            case (_, nil): lines.append("\(name): missing")
            case let (expected?, committed?) where expected != committed: lines.append("\(name): differs from the scanner's output")
            default: break
            }
        }
        return lines
    }
}
