import StrataPlatform
import StrataRender

extension SharedMemory {
    /// A bitmap over the whole mapping, keeping the memory alive while it exists.
    public func bitmap(width: Int, height: Int) throws(RenderError) -> Bitmap {
        try Bitmap(wrapping: address, width: width, height: height, stride: width * 4) { [self] _ in
            _ = self
        }
    }
}
