// `import Strata` is all an app needs: the Wayland layer and the render layer come with it.
@_exported import StrataRender
@_exported import WaylandClient
