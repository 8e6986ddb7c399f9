/// Where a `LayerHost` sends finished frames: a Wayland surface, or memory for headless use.
/// Main actor only.
@MainActor
public protocol SurfaceBackend: AnyObject {
    /// Receives frame signals, buffer releases and observations; the host sets itself.
    var delegate: (any SurfaceBackendDelegate)? { get set }
    /// A free buffer to paint the next frame into, or nil when all are busy (the host waits
    /// for `bufferReleased`).
    /// - Throws: when no buffer can be made (out of memory or descriptors); the host retries.
    func acquireBuffer(width: Int, height: Int) throws(StrataError) -> SurfaceBuffer?
    /// Shows a painted buffer; `damage` is in buffer pixels, and `geometry` is what it was
    /// painted for. A frame signal must follow.
    func present(_ buffer: SurfaceBuffer, damage: DamageRegion, geometry: SurfaceGeometry)
    /// Takes back a painted buffer that will not be shown.
    func discard(_ buffer: SurfaceBuffer)
    /// How long to wait for a frame signal before going on without one. Nil takes the host's
    /// `LayerHost.defaultFrameTimeout`; any value is kept within 1 ms…`LayerHost.longestFrameTimeout`,
    /// so a signal that never comes never freezes the surface.
    var frameTimeout: Duration? { get }
}

/// A backend's link back to its host: small on purpose. Main actor only.
@MainActor
public protocol SurfaceBackendDelegate: AnyObject {
    /// The surface's geometry now, for the backend's own check that a buffer still fits it.
    var surfaceGeometry: SurfaceGeometry { get }
    /// The compositor wants the next frame.
    func frameDone(_ signal: FrameSignal)
    /// A buffer became free.
    func bufferReleased()
    /// Something worth counting or reporting happened.
    func backendObserved(_ observation: SurfaceBackendObservation)
}

/// What a backend tells its host besides frame signals and releases.
public enum SurfaceBackendObservation: Sendable {
    /// The compositor showed a frame at this time (presentation clock, nanoseconds).
    case presented(at: UInt64)
    /// The compositor reported a frame never shown.
    case discardedByCompositor
    /// A buffer was attached although it no longer matched the surface (this must not happen).
    case staleAttach
    /// A problem with a fallback.
    case problem(LayerHost.Problem)
}

