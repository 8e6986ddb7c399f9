// swift-tools-version: 6.1
// Strata's benchmark program, in a package of its own so that its peers' dependencies (cairo,
// pango) never reach the toolkit. It depends on Strata by path.
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CBenchCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CBenchPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(name: "CBenchFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CBenchHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CBenchGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // M13: the driver's keymap (xkbcommon), and the GTK4 peer's own frame callbacks (libwayland).
        .systemLibrary(name: "CBenchXKB", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        .systemLibrary(name: "CBenchWaylandClient", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        // M14's peer: gdk-pixbuf, which GTK apps load thumbnails with.
        .systemLibrary(name: "CBenchGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        // The peers in C: cairo + pango, and the raw pixman + FreeType (+ HarfBuzz) floor.
        .target(name: "Peers", dependencies: ["CBenchCairo", "CBenchPixman", "CBenchFreeType", "CBenchHarfBuzz"],
                linkerSettings: [.linkedLibrary("m")]),
        // Measurement with no toolkit in it: percentiles, goals, the harness, the report and the
        // generated part of BENCHMARKS.md.
        .target(name: "BenchKit"),
        .executableTarget(name: "strata-bench", dependencies: [
            "BenchKit", "Peers", "CBenchXKB", "CBenchGdkPixbuf", .product(name: "Strata", package: "Strata"), .product(name: "FeedKit", package: "Strata"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], exclude: ["orca_like_listener.py"]),  // M9's listening assistive technology, run from its source
        // M9's GTK4 peer: the feed in a GtkListView, a C program of its own (see its README).
        .executableTarget(name: "gtk-feed-peer", dependencies: ["CBenchGtk", "CBenchWaylandClient"], linkerSettings: [.linkedLibrary("m")]),
        // The GTK4 peers' half of the input-latency metrics: their frame callbacks, in C.
        .target(name: "GtkPeerProbe", dependencies: ["CBenchGtk", "CBenchWaylandClient"]),
        // M13's GTK4 peer: the same document in a GtkTextView, typed into through sway's seat.
        .executableTarget(name: "gtk-typing-peer", dependencies: ["GtkPeerProbe"]),
        // M11's GTK4 peer: a GtkButton whose label counts clicks, clicked through sway's seat.
        .executableTarget(name: "gtk-click-peer", dependencies: ["GtkPeerProbe"]),
        // M6's memory per window: the gallery's controls in N windows, in Strata (linking nothing
        // but Strata and the gallery's GalleryKit) and in GTK4, each a process of its own.
        .executableTarget(name: "gallery-memory-subject", dependencies: [
            .product(name: "Strata", package: "Strata"), .product(name: "GalleryKit", package: "Strata"),
        ]),
        .executableTarget(name: "gtk-gallery-peer", dependencies: ["CBenchGtk"]),
        // M7's subject, a process of its own that links nothing but Strata.
        .executableTarget(name: "first-frame-subject", dependencies: [.product(name: "Strata", package: "Strata")]),
        // M9's Strata subject: the feed example's list and cells, scrolled and measured per frame.
        .executableTarget(name: "feed-scroll-subject", dependencies: [
            .product(name: "Strata", package: "Strata"), .product(name: "FeedKit", package: "Strata"),
        ]),
        .testTarget(name: "BenchKitTests", dependencies: ["BenchKit"]),
        .testTarget(name: "StrataBenchTests", dependencies: ["strata-bench", .product(name: "Strata", package: "Strata"),
                                                            .product(name: "FeedKit", package: "Strata")]),
    ],
    swiftLanguageModes: [.v6]
)
