/// The render layer's process-wide caches of text work, bounded in bytes: their budgets, which
/// may be changed at any time from any thread (lowering one evicts at once), and their statistics,
/// for soak tests and diagnostics. Every budget holds for the cache's estimate of what its entries
/// take; an entry larger than its cache's whole budget is used once and not kept.
///
/// The other caches have their own budgets: each `FontLibrary`'s `glyphCache` (8 MiB by default)
/// and face cache (`FontLibrary.defaultFaceCacheBytes`), and each `ImageCache` (64 MiB for
/// `ImageCache.shared`).
public enum RenderCaches {
    /// Bytes of laid-out text `TextLayout.cached` keeps; 16 MiB by default.
    public static var layoutBudget: Int {
        get { LayoutCache.shared.layouts.budget }
        set { LayoutCache.shared.layouts.budget = newValue }
    }

    /// Bytes of HarfBuzz output kept for runs of text; 8 MiB by default.
    public static var shapingBudget: Int {
        get { ShapeCache.shared.runs.budget }
        set { ShapeCache.shared.runs.budget = newValue }
    }

    /// Bytes of anti-aliased corner coverage kept; 1 MiB by default.
    public static var cornerMaskBudget: Int {
        get { CornerMasks.shared.masks.budget }
        set { CornerMasks.shared.masks.budget = newValue }
    }

    /// Bytes of blurred shadows kept (see `Canvas.drawShadow`); 4 MiB by default.
    public static var shadowMaskBudget: Int {
        get { ShadowMasks.shared.masks.budget }
        set { ShadowMasks.shared.masks.budget = newValue }
    }

    /// The layout cache's use and size now.
    public static var layouts: CacheStatistics { LayoutCache.shared.layouts.statistics }
    /// The shaped-run cache's use and size now.
    public static var shapedRuns: CacheStatistics { ShapeCache.shared.runs.statistics }
    /// The corner-mask cache's use and size now.
    public static var cornerMasks: CacheStatistics { CornerMasks.shared.masks.statistics }
    /// The shadow cache's use and size now.
    public static var shadowMasks: CacheStatistics { ShadowMasks.shared.masks.statistics }

    /// Bytes held now by the caches above, `FontLibrary.shared`'s glyph, face and lookup caches,
    /// and `ImageCache.shared`: what a soak program samples to see memory stay flat.
    public static var totalBytes: Int {
        let fonts = FontLibrary.shared.cacheStatistics
        return layouts.bytes + shapedRuns.bytes + cornerMasks.bytes + shadowMasks.bytes
            + FontLibrary.shared.glyphCache.counts.bytes + fonts.faces.bytes + fonts.chains.bytes
            + fonts.characters.bytes + ImageCache.shared.cachedBytes
    }
}
