/// Shows a layer tree on a `wl_surface` that a host client owns, typically a subsurface of the
/// host's own window, on the host's `wl_display`.
///
/// Strata sends on the surface through a proxy wrapper bound to its own event queue, so its
/// frame callbacks and buffer releases are dispatched by Strata's loop and the host's queue and
/// listeners are never touched. Either Strata's `MainLoop` runs the process, or the host's loop
/// drives Strata through the pump API (`MainLoop.fileDescriptor` and `dispatch()`). The host
/// positions, maps and configures the surface; Strata only fills it. Main actor only.
@MainActor
public final class EmbeddedSurface {
    public let session: WaylandSession
    public let surface: WlSurface
    public let host: LayerHost
    private let backend: WaylandSurfaceBackend

    /// - Parameters:
    ///   - surface: the host's `wl_surface*`; it must outlive this object.
    ///   - size: the surface size in points.
    ///   - scale: device pixels per point; a whole number becomes the surface's buffer scale.
    public init(session: WaylandSession, surface: OpaquePointer, size: Size, scale: Double = 1) {
        self.session = session
        self.surface = session.connection.wrap(surface, as: WlSurface.self)
        backend = WaylandSurfaceBackend(session: session, surface: self.surface)
        host = LayerHost(size: size, scale: scale, backend: backend, loop: session.loop)
        applyScale(scale)
        backend.isReady = true
    }

    public var rootLayer: Layer { host.rootLayer }

    public func resize(to size: Size, scale: Double? = nil) {
        host.resize(to: size, scale: scale)
        if let scale { applyScale(scale) }
    }

    private func applyScale(_ scale: Double) {
        backend.bufferScale = scale == scale.rounded() && scale >= 1 ? Int32(scale) : 1
    }
}
