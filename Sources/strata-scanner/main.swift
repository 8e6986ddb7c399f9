// strata-scanner: turns the Wayland protocol XML in a folder into Swift bindings.
//
//   swift run strata-scanner Protocols Sources/WaylandProtocols/Generated          write
//   swift run strata-scanner --check Protocols Sources/WaylandProtocols/Generated  exit 1 on drift
import Foundation
import WaylandScanner

var arguments = Array(CommandLine.arguments.dropFirst())
let checkOnly = arguments.first == "--check"
if checkOnly { arguments.removeFirst() }
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: strata-scanner [--check] PROTOCOL_DIR OUTPUT_DIR\n".utf8))
    exit(2)
}
let input = URL(fileURLWithPath: arguments[0], isDirectory: true)
let output = URL(fileURLWithPath: arguments[1], isDirectory: true)

do {
    let expected = try BindingSet.generate(fromProtocolsIn: input)
    if checkOnly {
        let drift = try expected.drift(against: output)
        for line in drift { print(line) }
        exit(drift.isEmpty ? 0 : 1)
    }
    try expected.write(to: output)
    print("wrote \(expected.files.count) files to \(output.path)")
} catch {
    FileHandle.standardError.write(Data("strata-scanner: \(error)\n".utf8))
    exit(1)
}
