import StrataRender

extension FuzzTarget {
    /// PNG decoding: any bytes decode to a bitmap within the limits or fail with a typed error;
    /// a decoded bitmap encodes and decodes again to the same size; and then every way
    /// `ImageDecoder` decodes it, APNG frames included.
    public static let png = FuzzTarget(name: "png") { bytes in
        decodeEveryWay(bytes)
        guard let bitmap = try? PNG.decode(bytes) else { return }
        guard bitmap.width > 0, bitmap.height > 0,
              bitmap.width <= Bitmap.maximumDimension, bitmap.height <= Bitmap.maximumDimension
        else { violated("decoded a \(bitmap.width)×\(bitmap.height) bitmap") }
        guard let again = try? PNG.decode(PNG.encode(bitmap)), again.width == bitmap.width, again.height == bitmap.height
        else { violated("a decoded bitmap did not survive encoding") }
    }
}
