/// Decides between the recognizers that follow the same presses, for one `InputRouter`.
///
/// A press enrolls the recognizers of the layers it landed in, deepest first; each is fed the
/// presses it follows. When one asks to recognise, the arena checks the recognizers it must
/// wait for, lets it recognise, fails or cancels the rest that may not recognise with it, and
/// tells the router to cancel the press in the layers (`onClaim`). A recognizer leaves once it
/// is finished and its presses have ended, reset to `.possible`. A recognizer with no press
/// and nothing scheduled cannot move on by itself, so the arena ends it: every waiting state
/// has a way out. Main actor only.
@MainActor
final class GestureArena {
    /// Recognizers following presses now, in the order they enrolled (deepest layer first).
    private(set) var participants: [GestureRecognizer] = []
    /// Called when a recognizer that cancels presses in its view recognises, with the devices
    /// it follows: the router cancels the presses those hold in the recognizer's layer.
    var onClaim: ((GestureRecognizer, Set<GesturePointer>) -> Void)?
    private var isSettling = false

    /// A press from `pointer` began at `event.hostLocation`, landing in `chain` (the hit layer
    /// and its ancestors, deepest first); `holder` took it in the ordinary way, if any layer did,
    /// and may keep ancestors' recognizers out of it (`Layer.allowsAncestorGesture(_:)`).
    func pressBegan(_ pointer: GesturePointer, _ event: PointerEvent, chain: [Layer], holder: Layer?) {
        for recognizer in enroll(chain, holder: holder) where recognizer.follows(event) && isHere(recognizer) {
            recognizer.follow(pointer, at: event.hostLocation)
            recognizer.pressBegan(localized(event, for: recognizer))
        }
        settle()
    }

    /// A followed press moved to `event.hostLocation`.
    func pressMoved(_ pointer: GesturePointer, _ event: PointerEvent) {
        for recognizer in following(pointer) where isHere(recognizer) {
            recognizer.follow(pointer, at: event.hostLocation)
            if !recognizer.state.isFinished { recognizer.pressMoved(localized(event, for: recognizer)) }
        }
        settle()
    }

    /// A followed press lifted.
    func pressEnded(_ pointer: GesturePointer, _ event: PointerEvent) {
        for recognizer in following(pointer) where isHere(recognizer) {
            recognizer.follow(pointer, at: event.hostLocation)
            if !recognizer.state.isFinished { recognizer.pressEnded(localized(event, for: recognizer)) }
            recognizer.unfollow(pointer)
        }
        settle()
    }

    /// A followed press was cancelled.
    func pressCancelled(_ pointer: GesturePointer, _ event: PointerEvent) {
        for recognizer in following(pointer) where isHere(recognizer) {
            if !recognizer.state.isFinished { recognizer.pressCancelled(localized(event, for: recognizer)) }
            recognizer.unfollow(pointer)
        }
        settle()
    }

    /// `taker` took the press over from a descendant (a scroll view scrolling): the recognizers
    /// below it lose the press, failing or cancelled.
    func pressTakenOver(_ pointer: GesturePointer, by taker: Layer) {
        for recognizer in following(pointer) where isHere(recognizer) {
            guard let layer = recognizer.layer, layer !== taker, layer.isDescendant(of: taker) else { continue }
            recognizer.unfollow(pointer)
            end(recognizer)
        }
        settle()
    }

    /// A touchpad gesture step at `point` (surface points) over `chain`, the layers under the
    /// pointer, deepest first; its beginning enrolls their recognizers.
    func touchpad(at point: Point, chain: [Layer], phase: TouchpadGesturePhase,
                  deliver: (GestureRecognizer, Point) -> Void) {
        if phase == .began {
            // A gesture that began and never ended (its end lost) is over.
            for old in following(.touchpad) where isHere(old) {
                old.unfollow(.touchpad)
                end(old)
            }
            for recognizer in enroll(chain, holder: nil) where isHere(recognizer) { recognizer.follow(.touchpad, at: point) }
        }
        for recognizer in following(.touchpad) where isHere(recognizer) {
            recognizer.follow(.touchpad, at: point)
            if !recognizer.state.isFinished { deliver(recognizer, recognizer.layer?.convertFromHost(point) ?? point) }
            if phase == .ended || phase == .cancelled { recognizer.unfollow(.touchpad) }
        }
        settle()
    }

    /// The pointer left the surface: a touchpad gesture under way is over (a compositor cancels
    /// it first; an embedding host may not).
    func touchpadLost() {
        for recognizer in following(.touchpad) where isHere(recognizer) {
            recognizer.unfollow(.touchpad)
            end(recognizer)
        }
        settle()
    }

    /// The subtree under `removed` left the tree: its recognizers end and leave.
    func layersRemoved(under removed: Layer) {
        for recognizer in participants {
            guard let layer = recognizer.layer, layer === removed || layer.isDescendant(of: removed) else { continue }
            remove(recognizer)
        }
    }

    /// A recognizer was turned off or taken off its layer: it ends and leaves.
    func remove(_ recognizer: GestureRecognizer) {
        guard isHere(recognizer) else { return }
        // Ending it runs its action, which may remove it itself (or others): look it up after.
        end(recognizer)
        guard let index = participants.firstIndex(where: { $0 === recognizer }) else { return }
        participants.remove(at: index)
        recognizer.resetToPossible()
        settle()
    }

    /// A recognizer asks to move to `new` (`GestureRecognizer.transition(to:)`).
    func transition(_ recognizer: GestureRecognizer, to new: State) {
        let state = recognizer.state
        switch (state, new) {
        case (.possible, .began), (.possible, .changed), (.possible, .ended):
            let wanted: State = new == .ended ? .ended : .began
            switch requirements(of: recognizer) {
            case .met:
                recognize(recognizer, as: wanted)
            case .waiting:
                // Asked again while waiting: an end replaces a beginning, never the reverse.
                if recognizer.deferredState != .ended { recognizer.deferredState = wanted }
            case .failed:
                recognizer.deferredState = nil
                recognizer.enter(.failed)
            }
        case (.possible, .failed), (.possible, .cancelled):
            recognizer.deferredState = nil
            recognizer.enter(.failed)
        case (.began, .changed), (.changed, .changed), (.began, .ended), (.changed, .ended),
             (.began, .cancelled), (.changed, .cancelled):
            recognizer.enter(new)
        case (.began, .failed), (.changed, .failed):
            recognizer.enter(.cancelled)
        default:
            return
        }
        settle()
    }

    typealias State = GestureRecognizer.State

    // MARK: Deciding

    private enum Requirements { case met, waiting, failed }

    /// Whether the recognizers `recognizer` must wait for have all failed (or follow other
    /// presses), one is still deciding, or one recognised.
    private func requirements(of recognizer: GestureRecognizer) -> Requirements {
        var result = Requirements.met
        for required in recognizer.failureRequirements where participants.contains(where: { $0 === required }) {
            if required.state.isRecognized { return .failed }
            if required.state == .possible { result = .waiting }
        }
        return result
    }

    private func recognize(_ winner: GestureRecognizer, as state: State) {
        winner.deferredState = nil
        winner.enter(state)
        // Only recognizers following the same presses compete: a tap under one finger is not
        // failed by a pan under another.
        let pointers = Set(winner.presses.keys)
        for other in participants where other !== winner && !winner.canRecognize(with: other)
            && !pointers.isDisjoint(with: other.presses.keys) {
            if other.state == .possible {
                other.deferredState = nil
                other.enter(.failed)
            } else if other.state == .began || other.state == .changed {
                other.enter(.cancelled)
            }
        }
        if winner.cancelsPressesInView, !winner.presses.isEmpty { onClaim?(winner, Set(winner.presses.keys)) }
    }

    /// Ends a recognizer that lost its presses: cancelled if under way, failed if not.
    private func end(_ recognizer: GestureRecognizer) {
        recognizer.deferredState = nil
        switch recognizer.state {
        case .possible: recognizer.enter(.failed)
        case .began, .changed: recognizer.enter(.cancelled)
        default: break
        }
    }

    /// Runs until nothing changes: deferred recognitions whose requirements are now decided go
    /// ahead or fail, recognizers that cannot move on end, finished ones leave.
    func settle() {
        guard !isSettling else { return }
        isSettling = true
        defer { isSettling = false }
        var changed = true
        while changed {
            changed = false
            for recognizer in participants where recognizer.state == .possible {
                if let deferred = recognizer.deferredState {
                    switch requirements(of: recognizer) {
                    case .met: recognize(recognizer, as: deferred)
                    case .failed: recognizer.deferredState = nil; recognizer.enter(.failed)
                    case .waiting: continue
                    }
                    changed = true
                }
            }
            for recognizer in participants where recognizer.presses.isEmpty && !recognizer.hasScheduledWork
                && !recognizer.state.isFinished && recognizer.deferredState == nil {
                end(recognizer)
                changed = true
            }
            // Nothing can happen any more (no press, no timer): recognizers still waiting for
            // each other (a cycle of `require(toFail:)`) fail.
            if !changed, participants.allSatisfy({ $0.presses.isEmpty && !$0.hasScheduledWork }) {
                for recognizer in participants where recognizer.state == .possible && recognizer.deferredState != nil {
                    recognizer.deferredState = nil
                    recognizer.enter(.failed)
                    changed = true
                }
            }
            let leaving = participants.filter { $0.state.isFinished && $0.presses.isEmpty }
            if !leaving.isEmpty {
                participants.removeAll { recognizer in leaving.contains { $0 === recognizer } }
                for recognizer in leaving { recognizer.resetToPossible() }
                changed = true
            }
        }
    }

    // MARK: Helpers

    /// Enrolls the enabled recognizers of `chain` that `holder` lets in and that are not already
    /// finished with a gesture; returns them, including those already enrolled, deepest first.
    private func enroll(_ chain: [Layer], holder: Layer?) -> [GestureRecognizer] {
        var result: [GestureRecognizer] = []
        // A holder's press handling may have taken layers out of the tree: theirs stay out.
        for layer in chain where layer.host != nil {
            for recognizer in layer.gestureRecognizers where recognizer.isEnabled {
                if let holder, holder !== layer, !holder.allowsAncestorGesture(recognizer) { continue }
                if participants.contains(where: { $0 === recognizer }) {
                    if !recognizer.state.isFinished { result.append(recognizer) }
                    continue
                }
                recognizer.arena = self
                participants.append(recognizer)
                result.append(recognizer)
            }
        }
        return result
    }

    /// Whether `recognizer` is still in this arena: an action may have removed or disabled it
    /// while a loop over a snapshot runs.
    private func isHere(_ recognizer: GestureRecognizer) -> Bool {
        recognizer.arena === self && participants.contains { $0 === recognizer }
    }

    /// The recognizers following `pointer`, finished ones included (they still have to let go).
    private func following(_ pointer: GesturePointer) -> [GestureRecognizer] {
        participants.filter { $0.presses[pointer] != nil }
    }

    private func localized(_ event: PointerEvent, for recognizer: GestureRecognizer) -> PointerEvent {
        var event = event
        event.location = recognizer.layer?.convertFromHost(event.hostLocation) ?? event.hostLocation
        return event
    }
}
