extension Layer {
    /// `point` from the superlayer's coordinates into this layer's, where the layer is seen
    /// (its presentation), so input lands on what is on screen while it animates.
    func convertFromSuperlayer(_ point: Point) -> Point {
        let shown = presentation()
        guard !shown.transform.isIdentity else {
            return Point(x: point.x - shown.position.x + shown.bounds.minX, y: point.y - shown.position.y + shown.bounds.minY)
        }
        // Through the inverse transform; one that cannot be inverted (a zero scale) hits nothing.
        guard let inverse = shown.frameTransform(anchorPoint: anchorPoint).inverted() else { return Point(x: .nan, y: .nan) }
        let local = inverse.apply(to: point)
        return Point(x: local.x + shown.bounds.minX, y: local.y + shown.bounds.minY)
    }

    /// `point` from this layer's coordinates into the superlayer's, where the layer is seen.
    func convertToSuperlayer(_ point: Point) -> Point {
        let shown = presentation()
        guard !shown.transform.isIdentity else {
            return Point(x: point.x - shown.bounds.minX + shown.position.x, y: point.y - shown.bounds.minY + shown.position.y)
        }
        return shown.frameTransform(anchorPoint: anchorPoint)
            .apply(to: Point(x: point.x - shown.bounds.minX, y: point.y - shown.bounds.minY))
    }

    /// `point` in this layer's coordinates, in surface points (the root's superlayer space).
    public func convertToHost(_ point: Point) -> Point {
        var result = point
        var node: Layer? = self
        while let layer = node {
            result = layer.convertToSuperlayer(result)
            node = layer.superlayer
        }
        return result
    }

    /// `point` in surface points, in this layer's coordinates.
    public func convertFromHost(_ point: Point) -> Point {
        var chain: [Layer] = []
        var node: Layer? = self
        while let layer = node {
            chain.append(layer)
            node = layer.superlayer
        }
        return chain.reversed().reduce(point) { $1.convertFromSuperlayer($0) }
    }

    /// `point` from this layer's coordinates into `layer`'s; with nil, into surface points.
    /// Layers of different trees meet in surface points.
    public func convert(_ point: Point, to layer: Layer?) -> Point {
        let host = convertToHost(point)
        return layer?.convertFromHost(host) ?? host
    }

    /// `point` from `layer`'s coordinates (surface points when nil) into this layer's.
    public func convert(_ point: Point, from layer: Layer?) -> Point {
        convertFromHost(layer?.convertToHost(point) ?? point)
    }

    /// `rect` from this layer's coordinates into `layer`'s (surface points when nil).
    public func convert(_ rect: Rect, to layer: Layer?) -> Rect {
        Rect(origin: convert(rect.origin, to: layer), size: rect.size)
    }

    /// The deepest layer at `point` in surface points, for a root layer; nil when nothing is
    /// there.
    func hitTest(hostPoint point: Point) -> Layer? {
        hitTest(convertFromSuperlayer(point))
    }
}
