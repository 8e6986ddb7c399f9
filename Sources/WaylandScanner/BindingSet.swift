import Foundation

/// The complete generated output for a folder of protocol files: one Swift file per XML file.
/// Writing and drift checking share this, so the check compares exactly what would be written.
public struct BindingSet: Equatable, Sendable {
    /// Swift file name → contents.
    public var files: [String: String]

    public static func generate(fromProtocolsIn folder: URL) throws -> BindingSet {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".xml") }.sorted()
        guard !names.isEmpty else {
            throw ScannerError(file: folder.path, line: 0, message: "no protocol XML files")
        }
        let specs = try names.map { try ProtocolParser.parse(contentsOf: folder.appendingPathComponent($0)) }
        let generator = SwiftGenerator(protocols: specs)
        var files: [String: String] = [:]
        for (name, spec) in zip(names, specs) {
            files[SwiftGenerator.fileName(for: spec)] = try generator.generate(spec, sourceName: name)
        }
        return BindingSet(files: files)
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
