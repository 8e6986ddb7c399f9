/// A Gaussian blur approximated by three box blurs (each pass a running sum, so the cost per
/// pixel does not grow with the radius), over premultiplied ARGB in place.
enum BoxBlur {
    /// The box radius whose three passes approximate a Gaussian of standard deviation `sigma`
    /// pixels: three boxes of width w have variance 3(w² − 1)/12.
    static func radius(sigma: Double) -> Int {
        guard sigma.isFinite, sigma > 0 else { return 0 }
        let width = (4 * sigma * sigma + 1).squareRoot()
        return max(Int((width - 1) / 2 + 0.5), 0)
    }

    /// Blurs `bitmap` by a Gaussian of standard deviation `sigma` pixels (edges read as
    /// transparent). Call on the thread that owns the bitmap.
    static func blur(_ bitmap: Bitmap, sigma: Double) {
        let radius = radius(sigma: sigma)
        guard radius > 0 else { return }
        bitmap.beginWriting()
        defer { bitmap.endWriting() }
        let width = bitmap.width, height = bitmap.height
        let longest = max(width, height)
        var line = [UInt32](repeating: 0, count: longest), out = [UInt32](repeating: 0, count: longest)
        for _ in 0..<3 {
            for y in 0..<height {
                let row = (bitmap.pixels + y * bitmap.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width { line[x] = row[x] }
                boxPass(line, &out, count: width, radius: radius)
                for x in 0..<width { row[x] = out[x] }
            }
            for x in 0..<width {
                for y in 0..<height { line[y] = bitmap.pixels.load(fromByteOffset: y * bitmap.stride + x * 4, as: UInt32.self) }
                boxPass(line, &out, count: height, radius: radius)
                for y in 0..<height { bitmap.pixels.storeBytes(of: out[y], toByteOffset: y * bitmap.stride + x * 4, as: UInt32.self) }
            }
        }
    }

    /// One box pass along `count` pixels: each output the mean of the 2·radius + 1 around it.
    private static func boxPass(_ input: [UInt32], _ output: inout [UInt32], count: Int, radius: Int) {
        let window = UInt32(2 * radius + 1)
        var sums: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        func add(_ pixel: UInt32) {
            sums.0 += pixel >> 24; sums.1 += (pixel >> 16) & 0xFF; sums.2 += (pixel >> 8) & 0xFF; sums.3 += pixel & 0xFF
        }
        func remove(_ pixel: UInt32) {
            sums.0 -= pixel >> 24; sums.1 -= (pixel >> 16) & 0xFF; sums.2 -= (pixel >> 8) & 0xFF; sums.3 -= pixel & 0xFF
        }
        for index in 0..<min(radius, count) { add(input[index]) }
        for index in 0..<count {
            if index + radius < count { add(input[index + radius]) }
            if index - radius - 1 >= 0 { remove(input[index - radius - 1]) }
            // Rounded means keep every channel within its alpha, so the pixel stays premultiplied.
            let half = window / 2
            let alpha = (sums.0 + half) / window, red = (sums.1 + half) / window
            let green = (sums.2 + half) / window, blue = (sums.3 + half) / window
            output[index] = alpha << 24 | red << 16 | green << 8 | blue
        }
    }
}
