// strata-scanner: turns the Wayland protocol XML in a folder into Swift bindings.
//
//   swift run strata-scanner Protocols Sources/WaylandProtocols/Generated          write
//   swift run strata-scanner --check Protocols Sources/WaylandProtocols/Generated  exit 1 on drift
//
// With `--extending Protocols`, the bindings are for a test module beside WaylandProtocols: they
// import it, and may name the interfaces and enums of the protocols it binds (folders are taken
// relative to the current directory, and named so in the generated header):
//
//   swift run strata-scanner --extending Protocols Tests/Protocols Tests/InputEndToEndTests/Generated
import Foundation
import WaylandScanner

var arguments = Array(CommandLine.arguments.dropFirst())
var checkOnly = false
var extending: String?
while let flag = arguments.first, flag.hasPrefix("--") {
    arguments.removeFirst()
    switch flag {
    case "--check": checkOnly = true
    case "--extending" where !arguments.isEmpty: extending = arguments.removeFirst()
    default: arguments = []  // unknown flag, or --extending without its folder: print the usage
    }
}
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: strata-scanner [--check] [--extending PROTOCOL_DIR] PROTOCOL_DIR OUTPUT_DIR\n".utf8))
    exit(2)
}
let input = URL(fileURLWithPath: arguments[0], isDirectory: true)
let output = URL(fileURLWithPath: arguments[1], isDirectory: true)

do {
    let expected: BindingSet
    if let extending {
        let placement = SwiftGenerator.Placement(protocolFolder: arguments[0], outputFolder: arguments[1], extendedProtocolFolder: extending)
        expected = try BindingSet.generate(placement, in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
    } else {
        expected = try BindingSet.generate(fromProtocolsIn: input)
    }
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
