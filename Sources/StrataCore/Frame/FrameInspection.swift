/// A composed frame as it is about to be attached, for test harnesses that check what reaches
/// the screen (see `LayerHost.frameInspector`).
@MainActor
public struct FrameInspection {
    /// The composed pixels exactly as they will be attached, the whole buffer (what a reused
    /// buffer kept from earlier frames included). Read it during the call only: once attached,
    /// the compositor owns it.
    public let bitmap: Bitmap
    /// The size and scale the frame was painted for.
    public let geometry: SurfaceGeometry
    /// The damage the backend will report, in buffer pixels.
    public let damage: DamageRegion
    /// The tick that collected the layer tree this frame shows, as counted by
    /// `Statistics.ticks`: layer contents set before that tick began are in it, later ones not.
    public let tick: Int
}

extension LayerHost {
    /// Hands a frame the backend is about to present to `frameInspector`, on the main thread,
    /// right before `SurfaceBackend.present` (for Wayland: attach).
    func inspect(_ frame: FrameComposer.PaintedFrame) {
        guard let frameInspector else { return }
        frameInspector(FrameInspection(bitmap: frame.buffer.bitmap, geometry: geometry, damage: frame.damage, tick: frame.tick))
    }
}
