#if !STRATA_FUZZING
import FuzzTargets
import Foundation

/// Without libFuzzer (an ordinary build), runs files through a target once each, to reproduce a
/// crash the fuzzer saved: `strata-fuzz TARGET FILE-OR-FOLDER…`.
@main
struct Replay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget.named(name) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: strata-fuzz TARGET FILE-OR-FOLDER…; targets: \(names)\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                print("strata-fuzz: \(name) \(file)")
                target.run(Array(data))
                count += 1
            }
        }
        print("strata-fuzz: \(count) inputs ran through \(name) without a crash")
    }

    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
#endif
