/// How a held key repeats, from `wl_keyboard.repeat_info`, with hostile values tamed: a
/// negative rate or delay (which the protocol forbids) disables repeat like a zero rate does, a
/// delay is at most 10 s and a rate at most 1000 a second, so a compositor can neither flood
/// the app with repeats nor stall one for ever.
struct KeyRepeatSettings: Equatable {
    /// Repeats a second; 0 when repeat is off.
    let rate: Int32
    /// From the press to the first repeat, in milliseconds.
    let delay: Int32

    static let maximumRate: Int32 = 1000
    static let maximumDelay: Int32 = 10_000

    /// What applies before `repeat_info` arrives (wl_seat v4 and later always send it; older
    /// ones never do): the common desktop default.
    static let standard = KeyRepeatSettings(rate: 25, delay: 600)

    init(rate: Int32, delay: Int32) {
        if rate <= 0 || delay < 0 {
            self.rate = 0
            self.delay = 0
        } else {
            self.rate = min(rate, Self.maximumRate)
            self.delay = min(delay, Self.maximumDelay)
        }
    }

    /// Whether held keys repeat at all.
    var isEnabled: Bool { rate > 0 }

    /// The time before the first repeat.
    var delayDuration: Duration { .milliseconds(delay) }

    /// The time between repeats; meaningful only when enabled.
    var interval: Duration { .nanoseconds(1_000_000_000 / Int64(max(rate, 1))) }
}
