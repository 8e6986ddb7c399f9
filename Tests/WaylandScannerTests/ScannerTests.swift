import Foundation
import Testing
@testable import WaylandScanner

/// The repository root, found from this file's path.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let fixtures = repository.appendingPathComponent("Tests/WaylandScannerTests/Fixtures")

@Suite struct GoldenOutput {
    /// The fixture uses every argument type; its Swift must match the committed expectation.
    /// Re-record with STRATA_RECORD=1.
    @Test func fixtureProtocolMatchesCommittedSwift() throws {
        let spec = try ProtocolParser.parse(contentsOf: fixtures.appendingPathComponent("fixture.xml"))
        let actual = try SwiftGenerator(protocols: [spec]).generate(spec, sourceName: "fixture.xml")
        let expectedURL = fixtures.appendingPathComponent("fixture.swift.expected")
        if ProcessInfo.processInfo.environment["STRATA_RECORD"] == "1" {
            try Data(actual.utf8).write(to: expectedURL)
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        if actual != expected {
            let actualURL = FileManager.default.temporaryDirectory.appendingPathComponent("fixture.swift.actual")
            try Data(actual.utf8).write(to: actualURL)
            Issue.record("generated Swift differs from \(expectedURL.path); actual written to \(actualURL.path)")
        }
    }

    /// The committed bindings are exactly what the scanner makes from Protocols/ today.
    @Test func committedBindingsHaveNotDrifted() throws {
        let expected = try BindingSet.generate(fromProtocolsIn: repository.appendingPathComponent("Protocols"))
        let drift = try expected.drift(against: repository.appendingPathComponent("Sources/WaylandProtocols/Generated"))
        #expect(drift.isEmpty, "run: swift run strata-scanner Protocols Sources/WaylandProtocols/Generated")
        #expect(expected.files.keys.sorted() == [
            "FractionalScaleV1.swift", "PresentationTime.swift", "Viewporter.swift", "Wayland.swift",
            "XdgDecorationUnstableV1.swift", "XdgShell.swift",
        ])
    }

    @Test func driftIsReportedPerFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-drift-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = BindingSet(files: ["A.swift": "a\n", "B.swift": "b\n"])
        try set.write(to: folder)
        #expect(try set.drift(against: folder).isEmpty)
        try Data("changed\n".utf8).write(to: folder.appendingPathComponent("A.swift"))
        try Data("stale\n".utf8).write(to: folder.appendingPathComponent("C.swift"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("B.swift"))
        #expect(try set.drift(against: folder) == [
            "A.swift: differs from the scanner's output",
            "B.swift: missing",
            "C.swift: committed but no protocol produces it",
        ])
    }
}

@Suite struct Parsing {
    @Test func fixtureModel() throws {
        let spec = try ProtocolParser.parse(contentsOf: fixtures.appendingPathComponent("fixture.xml"))
        #expect(spec.name == "strata_fixture")
        let widget = try #require(spec.interfaces.first)
        #expect(widget.name == "fx_widget" && widget.version == 3)
        #expect(widget.requests.map(\.name) == ["destroy", "send_all", "create_child", "bind_any"])
        #expect(widget.requests[0].isDestructor)
        #expect(widget.requests[2].since == 2)
        #expect(widget.events.map(\.name) == ["notify", "child_added", "done"])
        let flags = try #require(widget.enums.first { $0.name == "flags" })
        #expect(flags.isBitfield)
        #expect(flags.entries.map(\.value) == [0, 1, 2, 0x100])
        let title = widget.requests[1].arguments[3]
        #expect(title.kind == .string && !title.allowsNull)
        #expect(widget.requests[1].arguments[4].allowsNull)
    }

    @Test func signaturesFollowLibwayland() throws {
        let spec = try ProtocolParser.parse(contentsOf: fixtures.appendingPathComponent("fixture.xml"))
        let requests = spec.interfaces[0].requests
        #expect(SwiftGenerator.signature(requests[1]) == "iufs?so?ooahuui")
        #expect(SwiftGenerator.signature(requests[2]) == "2n?o")
        #expect(SwiftGenerator.signature(requests[3]) == "usun")
        #expect(SwiftGenerator.argumentSlots(requests[3]) == [nil, nil, nil, nil])
        #expect(SwiftGenerator.argumentSlots(requests[2]) == ["fx_child", "fx_child"])
    }

    @Test(arguments: [
        ("<protocol name='p'><interface name='i' version='1'><request name='r'><arg name='a' type='float'/></request></interface></protocol>", "unknown argument type 'float'"),
        ("<protocol name='p'><interface name='i'><request name='r'/></interface></protocol>", "needs a 'version' attribute"),
        ("<protocol name='p'><interface name='i' version='1'><enum name='e'><entry name='x' value='-1'/></enum></interface></protocol>", "not a 32-bit unsigned number"),
        ("<protocol name='p'><interface name='i' version='1'><request name='r'><arg name='a' type='int' allow-null='true'/></request></interface></protocol>", "allow-null on a 'int'"),
        ("<protocol name='p'><interface name='i' version='1'><event name='e'><arg name='a' type='new_id'/></event></interface></protocol>", "untyped new_id"),
        ("<protocol name='p'><interface name='i' version='1'>", "malformed XML"),
        ("<protocol name='p'><interface name='i' version='1'><bogus/></interface></protocol>", "unexpected element <bogus>"),
    ])
    func badInputIsRefusedWithWhereAndWhy(xml: String, message: String) {
        #expect {
            _ = try ProtocolParser.parse(Data(xml.utf8), fileName: "bad.xml")
        } throws: { error in
            guard let error = error as? ScannerError else { return false }
            return error.file == "bad.xml" && error.message.contains(message)
        }
    }

    @Test func unknownEnumReferenceIsAnError() throws {
        let xml = "<protocol name='p'><interface name='i' version='1'><request name='r'><arg name='a' type='uint' enum='nope'/></request></interface></protocol>"
        let spec = try ProtocolParser.parse(Data(xml.utf8), fileName: "bad.xml")
        #expect(throws: ScannerError.self) { try SwiftGenerator(protocols: [spec]).generate(spec, sourceName: "bad.xml") }
    }
}

@Suite struct Naming {
    @Test func names() {
        #expect(SwiftNames.typeName("zxdg_toplevel_decoration_v1") == "ZxdgToplevelDecorationV1")
        #expect(SwiftNames.memberName("set_buffer_scale") == "setBufferScale")
        #expect(SwiftNames.identifier("90") == "_90")
        #expect(SwiftNames.identifier("default") == "`default`")
        #expect(SwiftNames.enumTypeName("error") == "ErrorCode")
        #expect(SwiftNames.qualifiedEnumTypeName("wl_shm.format", in: "wl_buffer") == "WlShm.Format")
        #expect(SwiftNames.qualifiedEnumTypeName("transform", in: "wl_output") == "WlOutput.Transform")
    }
}
