// swift-tools-version: 6.1
import PackageDescription

/// A C library found through pkg-config, with the Debian package that provides it.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "Strata",
    products: [
        // The whole toolkit.
        .library(name: "Strata", targets: ["Strata"]),
        // The Wayland layer on its own: generated protocol bindings and the connection.
        .library(name: "WaylandClient", targets: ["WaylandClient"]),
        .executable(name: "strata-scanner", targets: ["strata-scanner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C system libraries.
        systemLibrary("CWaylandClient", pkgConfig: "wayland-client", apt: "libwayland-dev"),
        systemLibrary("CWaylandServer", pkgConfig: "wayland-server", apt: "libwayland-dev"),
        systemLibrary("CXKBCommon", pkgConfig: "xkbcommon", apt: "libxkbcommon-dev"),
        systemLibrary("CPixman", pkgConfig: "pixman-1", apt: "libpixman-1-dev"),
        systemLibrary("CFreeType", pkgConfig: "freetype2", apt: "libfreetype-dev"),
        systemLibrary("CFontconfig", pkgConfig: "fontconfig", apt: "libfontconfig-dev"),
        systemLibrary("CHarfBuzz", pkgConfig: "harfbuzz", apt: "libharfbuzz-dev"),
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),

        // A lock ThreadSanitizer understands (see Locked.swift for why not Synchronization.Mutex).
        .target(name: "Locking"),

        // Protocol scanner: XML → Swift.
        .target(name: "WaylandScanner"),
        .executableTarget(name: "strata-scanner", dependencies: ["WaylandScanner"]),

        // Protocol bindings: hand-written runtime plus generated code.
        .target(
            name: "WaylandProtocols",
            dependencies: ["CWaylandClient", "Locking", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Connection: display, private event queue, registry, errors.
        .target(name: "WaylandClient", dependencies: ["WaylandProtocols", "CWaylandClient", "CLinux", "Locking"]),
        // Linux calls Swift's Glibc module does not export (memfd_create, file sealing).
        .target(name: "CLinux"),
        // Rendering: geometry, colour, bitmaps, the pixman canvas, PNG.
        .target(name: "StrataRender", dependencies: ["CPixman", "CPNG", "CFreeType", "CHarfBuzz", "CFontconfig", "Locking"]),
        // The toolkit: async display core, layers, backends.
        .target(
            name: "Strata",
            dependencies: ["WaylandClient", "StrataRender", "CLinux", "Locking", .product(name: "SystemPackage", package: "swift-system")]
        ),

        // Examples.
        .executableTarget(name: "wayland-info", dependencies: ["WaylandClient"], path: "Examples/wayland-info"),
        .executableTarget(name: "strata-demo", dependencies: ["Strata"], path: "Examples/strata-demo", exclude: ["screenshot.png"]),
        .executableTarget(
            name: "embed-host",
            dependencies: ["Strata", .product(name: "SystemPackage", package: "swift-system")],
            path: "Examples/embed-host"
        ),
        .executableTarget(name: "headless-scene", dependencies: ["Strata"], path: "Examples/headless-scene", exclude: ["screenshot.png"]),

        // Tests.
        .target(name: "WaylandTestSupport", dependencies: ["WaylandClient", "CWaylandServer", "Locking"], path: "Tests/WaylandTestSupport"),
        .testTarget(
            name: "WaylandScannerTests",
            dependencies: ["WaylandScanner"],
            resources: [.copy("Fixtures")]
        ),
        .executableTarget(name: "main-thread-probe", dependencies: ["WaylandClient", "CLinux"], path: "Tests/MainThreadProbe"),
        .testTarget(
            name: "WaylandClientTests",
            dependencies: [
                "WaylandClient", "WaylandTestSupport", "CWaylandClient", "main-thread-probe",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Golden-image comparison shared by the render and core tests.
        .target(name: "RenderTestSupport", dependencies: ["StrataRender"], path: "Tests/RenderTestSupport"),
        // Golden images are read from the source tree by path, so they are excluded, not resources.
        .testTarget(name: "StrataRenderTests", dependencies: ["StrataRender", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataRender", "Locking", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "WindowTests", dependencies: ["Strata", "WaylandTestSupport", "embed-host"]),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CXKBCommon", "CPixman", "CFreeType", "CFontconfig", "CHarfBuzz", "CPNG"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
