import StrataRender

/// A test image: red, green, blue and yellow quadrants in a one-pixel black frame, and with
/// `cornerDot` a white pixel inside the top-left corner, so orientation shows in golden images.
public func quadrantImage(cornerDot: Bool = false, width: Int, height: Int) throws -> Bitmap {
    let image = try Bitmap(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            let color: UInt32
            if x == 0 || y == 0 || x == width - 1 || y == height - 1 {
                color = 0xFF00_0000
            } else if cornerDot && x == 1 && y == 1 {
                color = 0xFFFF_FFFF
            } else {
                switch (x < width / 2, y < height / 2) {
                case (true, true): color = 0xFFFF_0000
                case (false, true): color = 0xFF00_C000
                case (true, false): color = 0xFF00_00FF
                case (false, false): color = 0xFFFF_D000
                }
            }
            image.pixels.storeBytes(of: color, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
        }
    }
    return image
}
