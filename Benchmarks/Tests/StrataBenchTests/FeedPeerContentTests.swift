import FeedKit
import Foundation
import Glibc
import Testing

/// M9 compares like with like only if GTK4's peer shows the very items Strata's feed shows: both
/// generate them from CONTENT.md, one in C and one in Swift. Every item is compared.
@Suite struct FeedPeerContentTests {
    /// gtk-feed-peer, built beside the test bundle by `swift build --package-path Benchmarks`.
    static var peer: String { program("gtk-feed-peer") }

    /// The benchmark package's program `name`, built beside the test bundle.
    static func program(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = length > 0 ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return String(executable.reversed().drop { $0 != "/" }.reversed()) + name
    }

    @Test func peerGeneratesTheFeedsItems() throws {
        let peer = Self.peer
        try #require(access(peer, X_OK) == 0, "\(peer) is missing: run `swift build --package-path Benchmarks` first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: peer)
        process.arguments = ["--dump-items", "0", String(FeedContent.itemCount)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = output.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == FeedContent.itemCount)
        var mismatches: [Int] = []
        for (index, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let item = FeedContent.item(index)
            let agrees = object["index"] as? Int == index && object["avatar"] as? Int == item.avatar
                && object["name"] as? String == item.name && object["timestamp"] as? String == item.timestamp
                && object["emphasis"] as? Int == item.emphasis && (object["sentences"] as? [Any])?.count == item.sentences.count
                && object["body"] as? String == item.sentences.joined(separator: " ")
                && (object["picture"] as? Int) == item.picture && (item.picture != nil || object["picture"] is NSNull)
                && (object["sticker"] as? Int) == item.sticker && (item.sticker != nil || object["sticker"] is NSNull)
            if !agrees { mismatches.append(index) }
        }
        #expect(mismatches.isEmpty, "items that differ: \(mismatches.prefix(10))")
    }
}
