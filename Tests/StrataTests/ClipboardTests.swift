import CoreTestSupport
import Testing
@testable import Strata

/// The clipboard type against a stand-in backend: this app's own content is read from memory,
/// another client's through the backend, invalid UTF-8 is replaced, and a failure reaches the
/// host as a problem rather than vanishing.
@MainActor
struct ClipboardTests {
    /// Another client's offer, with what it would send.
    final class PeerBackend: ClipboardBackend {
        var offered: [String: [UInt8]] = [:]
        var contentChanged: (@MainActor () -> Void)?
        var offers: [ClipboardContent?] = []
        var offeredTypes: [String] { Array(offered.keys) }
        func offer(_ content: ClipboardContent?) { offers.append(content) }
        func receive(_ type: String, maximumBytes: Int, _ completion: @escaping @MainActor (Result<[UInt8], StrataError>) -> Void) {
            guard let bytes = offered[type] else { return completion(.failure(StrataError(.notAvailable, "none"))) }
            completion(bytes.count > maximumBytes ? .failure(StrataError(.tooLarge, "too large")) : .success(bytes))
        }
    }

    @Test func ownContentIsReadFromMemoryUntilAnotherClientTakesOver() {
        let clipboard = Clipboard(), peer = PeerBackend()
        clipboard.backend = peer
        clipboard.setText("mine")
        #expect(peer.offers.count == 1 && Set(peer.offers[0]?.data.keys ?? [:].keys) == Set(Clipboard.textTypes))
        var read: String?
        clipboard.readText { read = try? $0.get() }
        #expect(read == "mine")
        // Another client's selection: its bytes, with the invalid ones replaced.
        peer.offered = ["text/plain;charset=utf-8": [0x61, 0xFF, 0x62]]
        peer.contentChanged?()
        clipboard.readText { read = try? $0.get() }
        #expect(read == "a\u{FFFD}b")
    }

    @Test func aClipboardWithoutTextSaysSo() {
        let clipboard = Clipboard(), peer = PeerBackend()
        clipboard.backend = peer
        peer.offered = ["image/png": [1, 2, 3]]
        var failure: StrataError?
        clipboard.readText { if case .failure(let error) = $0 { failure = error } }
        #expect(failure?.code == .notAvailable)
        // Over the limit: refused with its own code.
        peer.offered = ["text/plain": [UInt8](repeating: 0x61, count: 100)]
        clipboard.maximumReadBytes = 10
        clipboard.readText { if case .failure(let error) = $0 { failure = error } }
        #expect(failure?.code == .tooLarge)
    }

    @Test func aFailedPasteIsReportedToTheHost() throws {
        let scene = HeadlessScene(width: 200, height: 60)
        let field = TextField(text: "kept")
        field.frame = Rect(x: 0, y: 0, width: 200, height: 40)
        scene.root.addSublayer(field)
        var problems: [LayerHost.Problem] = []
        scene.host.onProblem = { problems.append($0) }
        let peer = PeerBackend()
        peer.offered = ["text/plain": [UInt8](repeating: 0x61, count: 100)]
        scene.host.clipboard.backend = peer
        scene.host.clipboard.maximumReadBytes = 10
        field.paste()
        #expect(field.text == "kept")
        #expect(problems.map(\.code) == [.textEditFailed])
        #expect((problems.first?.cause as? StrataError)?.code == .tooLarge)
    }
}
