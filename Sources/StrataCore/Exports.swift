// The core's API speaks in the render layer's types (Size, Color, Bitmap, Canvas) and runs on
// the platform's MainLoop: importing StrataCore brings both.
@_exported import StrataPlatform
@_exported import StrataRender
