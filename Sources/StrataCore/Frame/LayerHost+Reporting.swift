import Logging

// How renders and the backend report back to the host, and how the host counts and logs what
// happened. Statistics only observe: nothing here decides what the host does next.

extension LayerHost: DisplayRecorder {
    /// Logs a problem (escaped and cut: its message and cause may carry outside text, such as a
    /// path), counts it and passes it to `onProblem`.
    public func report(_ problem: Problem) {
        statistics.problems += 1
        Self.logProblem(problem)
        onProblem?(problem)
    }

    /// Logs a problem escaped and cut, for `report` and for layers that have no host to report to.
    static func logProblem(_ problem: Problem) {
        log.warning("\(problem.code): \(LogText.quoted(problem.description, limit: 500))")
    }

    /// Counts a render's progress; a render that ended lets the host go idle.
    public func record(_ event: DisplayEvent) {
        if case .started = event { rendersInFlight += 1 }
        if event.endsRender {
            rendersInFlight = max(rendersInFlight - 1, 0)
            if rendersInFlight == 0 { perform(clock.rendersReturned()) }
        }
        statistics.record(event)
        if case let .failed(problem) = event { report(problem) }
    }
}

extension LayerHost: SurfaceBackendDelegate {
    /// What the surface looks like now, for the backend's own check before it attaches.
    public var surfaceGeometry: SurfaceGeometry { geometry }

    /// The frame signal for the last presented frame (a `wl_surface.frame` callback).
    public func frameDone(_ signal: FrameSignal) {
        statistics.frameSignals += 1
        let interval = intervals.frameSignalled(signal)
        if let interval { statistics.frameIntervals.append(interval) }
        statistics.frameIntervalSource = intervals.source
        perform(clock.frameDone())
        if animation.pausedUntilFrameSignal {
            animation.pausedUntilFrameSignal = false
            resumeAnimations()
        }
        displayLink.frameSignalled(at: intervals.lastFrameTime ?? signal.arrival, interval: intervals.typicalInterval)
    }

    /// A buffer became free.
    public func bufferReleased() {
        perform(clock.bufferReleased())
    }

    /// Something the backend observed: presentation feedback, or a problem.
    public func backendObserved(_ observation: SurfaceBackendObservation) {
        switch observation {
        case let .presented(time):
            statistics.framesPresented += 1
            if let interval = intervals.presented(at: time) {
                statistics.presentationIntervals.append(interval)
                statistics.frameIntervals.append(interval)
            }
            statistics.frameIntervalSource = intervals.source
        case .discardedByCompositor:
            statistics.framesDiscardedByCompositor += 1
        case .staleAttach:
            statistics.staleAttaches += 1
        case let .problem(problem):
            report(problem)
        }
    }
}

extension LayerHost {
    func recordTransactionCounts() {
        let counts = transactions.counts
        statistics.transactionsCommitted += counts.committed - lastTransactionCounts.committed
        statistics.transactionsCoalesced += counts.coalesced - lastTransactionCounts.coalesced
        statistics.transactionsPerformed += counts.performed - lastTransactionCounts.performed
        lastTransactionCounts = counts
    }

    func recordMainThreadTime(since start: ContinuousClock.Instant, tick: Bool) {
        let elapsed = ContinuousClock.now - start
        statistics.mainThreadTime += elapsed
        if tick { statistics.mainThreadTimePerTick.append(elapsed) }
    }

    func logStatisticsPeriodically() {
        guard Self.logsStatistics else { return }
        let second = Monotonic.now / 1_000_000_000
        guard second > lastStatisticsLog else { return }
        lastStatisticsLog = second
        Self.log.info("\(statistics)")
    }
}
