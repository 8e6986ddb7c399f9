import Foundation
import Testing
@testable import WaylandScanner

/// Every public symbol the scanner emits carries a doc comment, even where the XML describes
/// nothing.
@Suite struct GeneratedDocumentation {
    @Test func everyPublicSymbolIsDocumented() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bindings = try BindingSet.generate(fromProtocolsIn: repository.appendingPathComponent("Protocols"))
        let fixture = try ProtocolParser.parse(contentsOf: repository.appendingPathComponent("Tests/WaylandScannerTests/Fixtures/fixture.xml"))
        var sources = bindings.files
        let testPlacement = SwiftGenerator.Placement(protocolFolder: "Tests/Protocols", outputFolder: "Tests/InputEndToEndTests/Generated",
                                                     extendedProtocolFolder: "Protocols")
        sources.merge(try BindingSet.generate(testPlacement, in: repository).files) { first, _ in first }
        sources["fixture"] = try SwiftGenerator(protocols: [fixture]).generate(fixture, sourceName: "fixture.xml")

        for (file, source) in sources.sorted(by: { $0.key < $1.key }) {
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            var inEnum = false  // inside a public enum, each `case` is a public symbol too
            for (index, line) in lines.enumerated() {
                if line.hasPrefix("public enum ") { inEnum = true } else if line == "}" { inEnum = false }
                let declares = line.hasPrefix("public ") || line.hasPrefix("nonisolated public ") || (inEnum && line.hasPrefix("case "))
                guard declares else { continue }
                let comment = lines[..<index].last { !$0.hasPrefix("@") }
                #expect(comment?.hasPrefix("///") == true, "\(file):\(index + 1) is undocumented: \(line)")
            }
        }
    }
}
