// The Strata toolkit. Its async display core, rendering and windows build on the Wayland layer,
// which is re-exported so that `import Strata` is all an app needs.
@_exported import WaylandClient
