import StrataCore
import WaylandClient

/// Decides the scale of a surface Strata owns and hands it to the surface's host: the
/// compositor's preferred fractional scale when it sends one (drawn through a viewport),
/// otherwise the largest integer scale of the outputs the surface is on. The host owns the scale;
/// the backend derives the buffer scale or the viewport destination from the host's geometry for
/// each frame. Windows and popups each keep one. Main actor only.
@MainActor
final class SurfaceScaleTracker {
    private unowned let session: WaylandSession
    private let surface: WlSurface
    private unowned let host: LayerHost
    private var enteredOutputs: [WlOutput] = []
    private var fractionalScale: WpFractionalScaleV1?
    private var viewport: WpViewport?
    /// The scale the compositor prefers through `wp_fractional_scale_v1`; it overrides outputs.
    private var preferredFractionalScale: Double?

    /// Starts following `surface`'s outputs, and asks for its preferred fractional scale when the
    /// compositor offers `wp_fractional_scale_v1` and `wp_viewporter`.
    init(session: WaylandSession, surface: WlSurface, host: LayerHost, backend: WaylandSurfaceBackend) throws(WaylandError) {
        self.session = session
        self.surface = surface
        self.host = host
        surface.addListener { [weak self] event in
            guard let self else { return }
            switch event {
            case let .enter(output?):
                enteredOutputs.append(output)
                updateIntegerScale()
            case let .leave(output?):
                enteredOutputs.removeAll { $0 === output }
                updateIntegerScale()
            default:
                break
            }
        }
        guard let manager = session.fractionalScaleManager, let viewporter = session.viewporter else { return }
        let viewport = try viewporter.getViewport(surface: surface)
        let fractional = try manager.getFractionalScale(surface: surface)
        fractional.addListener { [weak self] event in
            guard let self, case let .preferredScale(scale) = event, scale > 0 else { return }
            // Numerator over 120; beyond the host's largest scale, that one (not its fallback of 1).
            preferredFractionalScale = min(Double(scale) / 120, SurfaceGeometry.maximumScale)
            host.resize(to: host.size, scale: preferredFractionalScale)
            session.cursorMayHaveChanged(surface: surface.id)
        }
        backend.useViewport(viewport)
        self.viewport = viewport
        fractionalScale = fractional
    }

    func outputsChanged() { updateIntegerScale() }

    func outputRemoved(_ output: Output) {
        enteredOutputs.removeAll { $0 === output.proxy }
        updateIntegerScale()
    }

    /// Destroys the scale objects, before the surface goes.
    func destroy() {
        if let fractionalScale { host.send("wp_fractional_scale_v1.destroy", fractionalScale.destroy) }
        if let viewport { host.send("wp_viewport.destroy", viewport.destroy) }
        fractionalScale = nil
        viewport = nil
    }

    private func updateIntegerScale() {
        guard preferredFractionalScale == nil else { return }
        let scale = enteredOutputs.compactMap { session.output(for: $0)?.scale }.max() ?? 1
        guard Double(scale) != host.scale else { return }
        host.resize(to: host.size, scale: Double(scale))
        session.cursorMayHaveChanged(surface: surface.id)
    }
}

extension LayerHost {
    /// Sends a request; one that cannot be sent is reported (`Problem.requestFailed`, with the
    /// `WaylandError` as its cause) instead of being lost.
    func send(_ request: String, _ body: () throws(WaylandError) -> Void) {
        do {
            try body()
        } catch {
            report(.requestFailed(request, cause: error))
        }
    }
}
