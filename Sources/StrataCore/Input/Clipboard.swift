/// A clipboard: what the user copied, offered to every app, and read back when they paste. The
/// same type serves the clipboard (Ctrl+C, Ctrl+V) and the primary selection (select, then
/// middle-click). Content is bytes per MIME type; text is offered under the types other
/// clients ask for (`textTypes`).
///
/// A host reaches the seat's clipboards through `LayerHost.clipboard` and
/// `LayerHost.primarySelection`. On Wayland they go through `wl_data_device` and
/// `zwp_primary_selection_device_v1`; with no compositor (a test, a headless host) they live in
/// memory, which is also what pasting an app's own copy reads, so it never waits on a pipe.
/// Main actor only.
///
/// ```swift
/// host.clipboard.setText("copied")
/// host.clipboard.readText { result in
///     if case .success(let text) = result { field.insert(text) }
/// }
/// ```
@MainActor
public final class Clipboard {
    /// What moves content to and from other clients; nil keeps it in memory.
    public var backend: (any ClipboardBackend)? {
        didSet { backend?.contentChanged = { [weak self] in self?.owned = nil } }
    }
    /// The content this app offers, while it owns the clipboard.
    public private(set) var owned: ClipboardContent?

    /// The most bytes a read accepts before failing with `StrataError.tooLarge`: 16 MiB unless set.
    public var maximumReadBytes = 16 << 20

    /// A clipboard kept in memory, until a backend is set.
    public init() {}

    /// The MIME types text is offered under, most specific first: what GTK, Qt and X11 clients
    /// ask for.
    public static let textTypes = ["text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "TEXT", "STRING"]

    /// The MIME types on offer now, from this app or another; empty when nothing is.
    public var types: [String] { owned.map { Array($0.data.keys).sorted() } ?? backend?.offeredTypes ?? [] }

    /// Whether there is text to paste.
    public var hasText: Bool { types.contains { Self.textTypes.contains($0) } }

    /// Offers `text` under every text type, replacing what was offered.
    public func setText(_ text: String) {
        let bytes = Array(text.utf8)
        set(ClipboardContent(Dictionary(uniqueKeysWithValues: Self.textTypes.map { ($0, bytes) })))
    }

    /// Offers `content`, replacing what was offered. Empty content clears the offer.
    public func set(_ content: ClipboardContent) {
        owned = content.data.isEmpty ? nil : content
        backend?.offer(owned)
    }

    /// Reads the text on offer: the first text type offered, decoded as UTF-8 with invalid bytes
    /// replaced (U+FFFD). Calls `completion` once, later on the main thread, or at once when the
    /// content is this app's own.
    public func readText(_ completion: @escaping @MainActor (Result<String, StrataError>) -> Void) {
        guard let type = Self.textTypes.first(where: types.contains) else {
            completion(.failure(StrataError(.notAvailable, "the clipboard holds no text (it offers \(types.isEmpty ? "nothing" : types.joined(separator: ", ")))")))
            return
        }
        read(type) { result in completion(result.map { String(decoding: $0, as: UTF8.self) }) }
    }

    /// Reads the content offered as `type`. Calls `completion` once: at once for this app's own
    /// content, else on the main thread when the transfer ends, fails, passes
    /// `maximumReadBytes` or times out.
    public func read(_ type: String, _ completion: @escaping @MainActor (Result<[UInt8], StrataError>) -> Void) {
        if let owned {
            guard let bytes = owned.data[type] else {
                completion(.failure(StrataError(.notAvailable, "the clipboard does not offer \(type)")))
                return
            }
            guard bytes.count <= maximumReadBytes else {
                completion(.failure(StrataError(.tooLarge, "the clipboard's \(type) is \(bytes.count) bytes, past the limit of \(maximumReadBytes)")))
                return
            }
            completion(.success(bytes))
            return
        }
        guard let backend, backend.offeredTypes.contains(type) else {
            completion(.failure(StrataError(.notAvailable, "the clipboard does not offer \(type)")))
            return
        }
        backend.receive(type, maximumBytes: maximumReadBytes, completion)
    }
}

/// Content on a clipboard: bytes per MIME type.
public struct ClipboardContent: Sendable, Equatable {
    /// The bytes offered under each MIME type.
    public var data: [String: [UInt8]]

    /// Content offering `data`.
    public init(_ data: [String: [UInt8]]) { self.data = data }
}

/// Moves clipboard content between this app and others: the Wayland data device, or a test's
/// stand-in. Main actor only.
@MainActor
public protocol ClipboardBackend: AnyObject {
    /// The MIME types another client offers now; empty when none does (or this app does).
    var offeredTypes: [String] { get }
    /// Called when another client takes the clipboard over, so this app stops owning it.
    var contentChanged: (@MainActor () -> Void)? { get set }
    /// Offers `content` to other clients (nil withdraws the offer); it is sent from memory when
    /// they ask.
    func offer(_ content: ClipboardContent?)
    /// Receives another client's content of `type`, failing past `maximumBytes` or when the
    /// peer stalls; calls `completion` once, on the main thread.
    func receive(_ type: String, maximumBytes: Int, _ completion: @escaping @MainActor (Result<[UInt8], StrataError>) -> Void)
}
