import StrataRender

extension Bitmap {
    /// The smallest rectangle holding every pixel of exactly this colour, if any.
    public func bounds(of color: Color) -> Rect? {
        let target = color.premultipliedARGB
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        // Row memory directly: a screenshot is large, and nothing else touches this bitmap.
        for y in 0..<height {
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width where row[x] == target {
                minX = min(minX, x); maxX = max(maxX, x)
                minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return nil }
        return Rect(x: Double(minX), y: Double(minY), width: Double(maxX - minX + 1), height: Double(maxY - minY + 1))
    }
}
