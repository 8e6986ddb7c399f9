/// One layer's drawing, flattened into host coordinates: what composition needs, captured on
/// the main thread so the painting thread never touches a `Layer`. As in Core Animation, a
/// layer's background and contents draw below its sublayers and its border above them, so each
/// layer contributes a body item before its sublayers' items and a border item after them. A
/// layer that clips to rounded bounds also brackets its body and sublayers with a rounded clip,
/// and a layer's shadow comes before all of them.
struct DrawItem: Sendable {
    enum Part: Sendable {
        /// The layer's shadow alone, first: outside any clip of its own.
        case shadow
        case body, border
        /// Starts clipping to the layer's rounded frame; `endRoundedClip` cuts the corners of
        /// what was drawn in between (see `Canvas.clip(to:cornerRadius:)`).
        case beginRoundedClip, endRoundedClip
    }
    var part: Part
    /// In host points, or, with `transform`, in the layer's frame space.
    var frame: Rect
    /// Maps `frame`'s space to host points when that is more than a translation.
    var transform: AffineTransform?
    /// What the item covers in host points, its shadow included, for culling against damage.
    var hostBounds: Rect
    /// The clip from ancestors that clip to bounds, in host points.
    var clip: Rect
    /// The layer's opacity times its ancestors'.
    var opacity: Double
    var backgroundColor: Color?
    var cornerRadius: Double
    var borderWidth: Double
    var borderColor: Color?
    /// Never mutated once published, so it is safe to read on the painting thread while the main thread runs on.
    var contents: Bitmap?
    var roundsContents: Bool
    /// A shadow item's shadow, from the frame's rounded shape (see `Layer.shadow`).
    var shadow: Shadow? = nil
    /// While new contents fade in: the old contents (nil when fading in from nothing) and how
    /// far the fade has come.
    var contentsFade: (from: Bitmap?, progress: Double)?
}

