extension Layer {
    /// Attaches `recognizer` to this layer, taking it off the layer it was on.
    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        if let old = recognizer.layer {
            if old === self { return }
            old.removeGestureRecognizer(recognizer)
        }
        recognizer.layer = self
        gestureRecognizers.append(recognizer)
    }

    /// Detaches `recognizer`; a gesture it has under way is cancelled.
    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard let index = gestureRecognizers.firstIndex(where: { $0 === recognizer }) else { return }
        recognizer.arena?.remove(recognizer)
        gestureRecognizers.remove(at: index)
        recognizer.layer = nil
    }
}
