import StrataCore

/// Runs a list's prelayouts on worker queues, at most one per item id: asking again for an item
/// at another version or index cancels the older job. A result comes back on the loop's
/// thread, and never once its job was cancelled: a cancelled job that had not started costs
/// nothing. Main actor only.
@MainActor
final class ListPrelayoutScheduler {
    private struct Job {
        let sentinel: Sentinel
        let index: Int
        let version: Int
    }

    private var jobs: [Int: Job] = [:]
    /// The queues jobs run on.
    var queues = RenderQueuePool.shared

    /// Jobs started and not yet finished or cancelled.
    var count: Int { jobs.count }

    /// Starts `item`'s prelayout for item `index` at `width` and `scale`, unless the same job
    /// is already running; whether it started. `finished` runs on `loop`'s thread with the
    /// layout or the error it threw.
    func start(_ item: ListPrelayout, index: Int, width: Double, scale: Double, loop: MainLoop,
               finished: @escaping @MainActor (Result<ListItemLayout, ListView.Error>) -> Void) -> Bool {
        if let job = jobs[item.id], job.version == item.version, job.index == index { return false }
        jobs[item.id]?.sentinel.increase()
        let sentinel = Sentinel()
        let generation = sentinel.value
        jobs[item.id] = Job(sentinel: sentinel, index: index, version: item.version)
        let (make, id) = (item.make, item.id)
        queues.next().async { [weak self] in
            let isCancelled = { sentinel.isCancelled(since: generation) }
            // Cancelled while queued: it costs nothing.
            guard !isCancelled() else { return }
            let result: Result<ListItemLayout, any Swift.Error>
            do { result = .success(try make(width, scale, isCancelled)) } catch { result = .failure(error) }
            guard !isCancelled() else { return }
            // `any Error` is not Sendable: only its description crosses back.
            let outcome = result.mapError { ListView.Error(.prelayoutFailed, "item \(index): \($0)") }
            loop.post { [weak self] in
                guard let self, !isCancelled() else { return }
                jobs[id] = nil
                finished(outcome)
            }
        }
        return true
    }

    /// Cancels the jobs for items outside `range`; how many.
    func cancel(outside range: Range<Int>) -> Int {
        let outside = jobs.filter { !range.contains($0.value.index) }
        for (id, job) in outside {
            job.sentinel.increase()
            jobs[id] = nil
        }
        return outside.count
    }

    /// Cancels every job; how many.
    func cancelAll() -> Int {
        for job in jobs.values { job.sentinel.increase() }
        defer { jobs = [:] }
        return jobs.count
    }
}
