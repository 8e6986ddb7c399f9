import Locking
import StrataPlatform
import Synchronization

/// Fetches encoded image bytes from wherever an app keeps them that is not a file or memory: the
/// network, a database, a cache of its own. Strata fetches nothing itself. Used through
/// `ImageSource.loaded(key:by:)`.
///
/// ```swift
/// struct Photos: ImageLoader {
///     let session: URLSession
///     func bytes(forKey key: String) async throws -> [UInt8] {
///         let (data, _) = try await session.data(from: URL(string: "https://photos.example/\(key)")!)
///         return [UInt8](data)
///     }
/// }
/// cell.photo.source = .loaded(key: post.photoID, by: photos)
/// ```
public protocol ImageLoader: Sendable {
    /// The encoded bytes (PNG, JPEG, WebP or GIF) of the image called `key`. Runs in a task of
    /// its own, which Strata cancels once no view and no list wants the image any more (a cell
    /// scrolled out of its list's preload range, a view given another source): honour
    /// cancellation, and throw `CancellationError` or return early then. A loader that never
    /// returns holds only its own task; nothing waits for it.
    func bytes(forKey key: String) async throws -> [UInt8]
}

/// Interest in one image being fetched by its loader (`ImageSource.fetch(in:completion:)`).
/// Fetches are shared by key: however many views and lists ask for an image at once, its loader
/// runs once; the loader's task is cancelled when every interest in it is cancelled. Cancelled
/// explicitly with `cancel()`, or when the last reference goes. Any thread.
public final class ImageFetch: Sendable {
    private let cancelAction: @Sendable () -> Void
    private let cancelled = Atomic<Bool>(false)

    init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    /// Drops this interest; the completion is not called after it returns. Idempotent.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelAction()
    }

    deinit { cancel() }
}

/// The fetches running for one cache: one task per image, with everyone waiting for it.
final class ImageFetches: Sendable {
    typealias Completion = @Sendable (Result<[UInt8], RenderError>) -> Void

    private struct Running {
        /// Tells this fetch apart from a later one of the same image.
        let generation: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Completion] = [:]
    }

    private struct State {
        var running: [ImageCache.Key.Name: Running] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Waits for `name`'s bytes from `loader`, starting its fetch unless one runs; `completion`
    /// gets them (after `keep` has been given them) or the failure, on the loader's task, unless
    /// the returned interest is cancelled first.
    func fetch(_ name: ImageCache.Key.Name, key: String, loader: any ImageLoader, maximumBytes: Int,
               keep: @escaping @Sendable ([UInt8]) -> Void, completion: @escaping Completion) -> ImageFetch {
        let (id, generation) = state.withLock { state -> (UInt64, UInt64?) in
            state.nextID += 1
            let id = state.nextID
            guard state.running[name] != nil else {
                state.running[name] = Running(generation: id, waiters: [id: completion])
                return (id, id)
            }
            state.running[name]?.waiters[id] = completion
            return (id, nil)
        }
        if let generation {
            let task = Task.detached { [self] in
                let result: Result<[UInt8], RenderError>
                do {
                    let bytes = try await loader.bytes(forKey: key)
                    if bytes.count > maximumBytes {
                        result = .failure(RenderError(.fileTooLarge, "the loader of image \(LogText.quoted(key)) gave \(bytes.count) bytes; the limit is \(maximumBytes)"))
                    } else {
                        keep(bytes)
                        result = .success(bytes)
                    }
                } catch let error as RenderError {
                    result = .failure(error)
                } catch {
                    result = .failure(RenderError(.loadFailed, "the loader of image \(LogText.quoted(key)) failed", cause: error))
                }
                finish(name, generation: generation, result)
            }
            // Every interest may have been cancelled meanwhile: then the task is told at once.
            let kept = state.withLock { state -> Bool in
                guard state.running[name]?.generation == generation else { return false }
                state.running[name]?.task = task
                return true
            }
            if !kept { task.cancel() }
        }
        return ImageFetch { [weak self] in self?.cancel(name, id: id) }
    }

    private func finish(_ name: ImageCache.Key.Name, generation: UInt64, _ result: Result<[UInt8], RenderError>) {
        let waiters = state.withLock { state -> [Completion] in
            guard state.running[name]?.generation == generation else { return [] }
            return state.running.removeValue(forKey: name)?.waiters.values.map { $0 } ?? []
        }
        for waiter in waiters { waiter(result) }
    }

    private func cancel(_ name: ImageCache.Key.Name, id: UInt64) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.running[name]?.waiters.removeValue(forKey: id) != nil, state.running[name]?.waiters.isEmpty == true else { return nil }
            // The last one interested: the fetch ends here, and its loader is told.
            return state.running.removeValue(forKey: name)?.task
        }
        task?.cancel()
    }
}
