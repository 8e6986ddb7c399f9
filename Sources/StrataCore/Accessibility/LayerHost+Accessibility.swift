/// Hears, once per frame, which parts of a host's semantic tree changed: an accessibility
/// bridge, which reads the changed elements again and tells assistive technologies. While a
/// host has none, changes cost one check each and nothing is collected.
@MainActor
public protocol AccessibilityObserver: AnyObject {
    /// Elements changed (`Layer.accessibilityDidChange()`), children came or went under
    /// `structure`, or the focus moved, since the last call.
    func accessibilityChanged(in host: LayerHost, _ changes: AccessibilityChanges)
}

/// What changed in a semantic tree since the last frame.
public struct AccessibilityChanges {
    /// Layers whose element changed, each once, in the order they first changed.
    public var elements: [Layer] = []
    /// Layers whose sublayers came, went, moved, or were hidden or shown.
    public var structure: [Layer] = []
    /// Whether the focused layer changed.
    public var focusMoved = false
    /// Messages to say now (`Layer.announceForAccessibility(_:)`), oldest first: at most
    /// `maximumAnnouncements` a frame, each at most `maximumAnnouncementLength` characters.
    public var announcements: [String] = []

    /// The most announcements kept for a frame: the newest, as a screen reader would cut off
    /// the older ones anyway.
    public static let maximumAnnouncements = 4
    /// The most characters an announcement keeps.
    public static let maximumAnnouncementLength = 1000

    /// Whether nothing changed.
    public var isEmpty: Bool { elements.isEmpty && structure.isEmpty && !focusMoved && announcements.isEmpty }
}

/// Changes gathered for a host's observer until the frame is done.
struct AccessibilityTracking {
    weak var observer: (any AccessibilityObserver)?
    var pending = AccessibilityChanges()
    var seenElements: Set<ObjectIdentifier> = []
    var seenStructure: Set<ObjectIdentifier> = []
    /// Delivers the changes when no frame comes to (a hidden window gets no frame callbacks).
    var fallback: MainLoop.Token?
}

extension LayerHost {
    /// How long changes wait for a frame before they are delivered without one.
    static let accessibilityFallbackDelay = Duration.milliseconds(100)

    /// The bridge told of changes in this host's semantic tree, once per frame. Nil, the
    /// default, costs nothing: no element is read and no change is kept. Held weakly.
    public var accessibilityObserver: (any AccessibilityObserver)? {
        get { accessibilityTracking.observer }
        set {
            accessibilityTracking.observer = newValue
            accessibilityTracking.pending = AccessibilityChanges()
            accessibilityTracking.seenElements = []
            accessibilityTracking.seenStructure = []
            if let fallback = accessibilityTracking.fallback { loop.cancelTimer(fallback) }
            accessibilityTracking.fallback = nil
        }
    }

    func accessibilityElementChanged(_ layer: Layer) {
        guard accessibilityTracking.observer != nil else { return }
        if accessibilityTracking.seenElements.insert(ObjectIdentifier(layer)).inserted {
            accessibilityTracking.pending.elements.append(layer)
        }
        accessibilityChangePending()
    }

    func accessibilityStructureChanged(_ layer: Layer) {
        guard accessibilityTracking.observer != nil else { return }
        if accessibilityTracking.seenStructure.insert(ObjectIdentifier(layer)).inserted {
            accessibilityTracking.pending.structure.append(layer)
        }
        accessibilityChangePending()
    }

    func accessibilityFocusChanged() {
        guard accessibilityTracking.observer != nil else { return }
        accessibilityTracking.pending.focusMoved = true
        accessibilityChangePending()
    }

    func accessibilityAnnounce(_ message: String) {
        guard accessibilityTracking.observer != nil else { return }
        let kept = message.count > AccessibilityChanges.maximumAnnouncementLength
            ? String(message.prefix(AccessibilityChanges.maximumAnnouncementLength)) : message
        guard !kept.isEmpty else { return }
        var announcements = accessibilityTracking.pending.announcements
        announcements.append(kept)
        accessibilityTracking.pending.announcements = Array(announcements.suffix(AccessibilityChanges.maximumAnnouncements))
        accessibilityChangePending()
    }

    private func accessibilityChangePending() {
        guard accessibilityTracking.fallback == nil else { return }
        accessibilityTracking.fallback = loop.addTimer(after: Self.accessibilityFallbackDelay) { [weak self] in
            self?.accessibilityTracking.fallback = nil
            self?.deliverAccessibilityChanges()
        }
    }

    /// Hands the frame's changes to the observer; called at the end of each tick.
    func deliverAccessibilityChanges() {
        guard let observer = accessibilityTracking.observer, !accessibilityTracking.pending.isEmpty else { return }
        let changes = accessibilityTracking.pending
        accessibilityTracking.pending = AccessibilityChanges()
        accessibilityTracking.seenElements = []
        accessibilityTracking.seenStructure = []
        if let fallback = accessibilityTracking.fallback { loop.cancelTimer(fallback) }
        accessibilityTracking.fallback = nil
        observer.accessibilityChanged(in: self, changes)
    }
}
