// `import Strata` is all an app needs: the Wayland side, the widgets, the desktop's settings and
// D-Bus, the core, the render layer, the Wayland layer and the platform layer all come with it.
@_exported import StrataCore
@_exported import StrataDBus
@_exported import StrataDesktop
@_exported import StrataPlatform
@_exported import StrataRender
@_exported import StrataWayland
@_exported import StrataWidgets
@_exported import WaylandClient
// swift-system's types are part of the public API (`MainLoop.addSource` takes a `FileDescriptor`,
// `SystemCallError` carries an `Errno`), so an app must not need the package itself to name them.
@_exported import SystemPackage
