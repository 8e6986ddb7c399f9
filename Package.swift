// swift-tools-version: 6.1
import PackageDescription

let system = Target.Dependency.product(name: "SystemPackage", package: "swift-system")
let log = Target.Dependency.product(name: "Logging", package: "swift-log")

/// A C library found through pkg-config, with the Debian package that provides it.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "Strata",
    products: [
        // The whole toolkit.
        .library(name: "Strata", targets: ["Strata"]),
        // The toolkit without Wayland: layers, the frame pipeline and the headless backend.
        .library(name: "StrataCore", targets: ["StrataCore"]),
        // The Wayland layer on its own: generated protocol bindings and the connection.
        .library(name: "WaylandClient", targets: ["WaylandClient"]),
        .executable(name: "strata-scanner", targets: ["strata-scanner"]),
        // The feed example's content, assets and cells, for the benchmark's M9 subject.
        .library(name: "FeedKit", targets: ["FeedKit"]),
        // The gallery example's controls, for the benchmark's M6 subject (memory per window).
        .library(name: "GalleryKit", targets: ["GalleryKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C system libraries.
        systemLibrary("CWaylandClient", pkgConfig: "wayland-client", apt: "libwayland-dev"),
        systemLibrary("CWaylandServer", pkgConfig: "wayland-server", apt: "libwayland-dev"),
        systemLibrary("CWaylandCursor", pkgConfig: "wayland-cursor", apt: "libwayland-dev"),
        systemLibrary("CXKBCommon", pkgConfig: "xkbcommon", apt: "libxkbcommon-dev"),
        systemLibrary("CPixman", pkgConfig: "pixman-1", apt: "libpixman-1-dev"),
        systemLibrary("CFreeType", pkgConfig: "freetype2", apt: "libfreetype-dev"),
        systemLibrary("CFontconfig", pkgConfig: "fontconfig", apt: "libfontconfig-dev"),
        systemLibrary("CHarfBuzz", pkgConfig: "harfbuzz", apt: "libharfbuzz-dev"),
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        systemLibrary("CWebP", pkgConfig: "libwebpdemux", apt: "libwebp-dev"),
        systemLibrary("CGIF", pkgConfig: "libgif", apt: "libgif-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        systemLibrary("CSDBus", pkgConfig: "libsystemd", apt: "libsystemd-dev"),
        // AT-SPI2's numbers only (a header with no library behind it), so no pkg-config: its
        // pkg-config file would link libatspi and GLib.
        .systemLibrary(name: "CAtspiConstants", providers: [.apt(["libatspi2.0-dev"])]),

        // A lock ThreadSanitizer understands (see Locked.swift for why not Synchronization.Mutex).
        .target(name: "Locking"),

        // Protocol scanner: XML → Swift.
        .target(name: "WaylandScanner"),
        .executableTarget(name: "strata-scanner", dependencies: ["WaylandScanner"]),

        // Linux below everything else: system calls with typed errors, shared memory, the main loop.
        .target(name: "StrataPlatform", dependencies: ["CLinux", "Locking", system, log]),

        // D-Bus over sd-bus, driven by the main loop: the desktop's settings now, accessibility later.
        .target(name: "StrataDBus", dependencies: ["CSDBus", "StrataPlatform", system]),
        // The desktop's settings over D-Bus: its appearance (colour scheme, accent, text size).
        .target(name: "StrataDesktop", dependencies: ["StrataDBus", "StrataCore", "CAtspiConstants"]),

        // Protocol bindings: hand-written runtime plus generated code.
        .target(name: "WaylandProtocols", dependencies: ["CWaylandClient", "Locking", system]),
        // Connection: display, private event queue, registry, errors, and driving it from the loop.
        .target(name: "WaylandClient", dependencies: ["WaylandProtocols", "CWaylandClient", "StrataPlatform", "Locking", system]),
        // Linux calls Swift's Glibc module does not export (memfd_create, file sealing).
        .target(name: "CLinux"),
        // ICU's segmentation, bidi and scripts (libicu-dev) behind plain C types: Foundation has an
        // ICU module of its own whose types would clash with the system's in its clients.
        .target(name: "CStrataICU", linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icudata")]),
        // libjpeg-turbo behind functions that return errors: libjpeg reports them by longjmp, which
        // must never cross a Swift frame, so every libjpeg call is made from C (libjpeg62-turbo-dev);
        // with libexif (libexif-dev) for the orientation in a JPEG's EXIF block.
        .target(name: "CStrataJPEG", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("exif")]),
        // Rendering: geometry, colour, bitmaps, the pixman canvas, text, image decoding.
        .target(
            name: "StrataRender",
            dependencies: ["CPixman", "CPNG", "CWebP", "CGIF", "CZlib", "CStrataJPEG", "CFreeType", "CHarfBuzz", "CFontconfig", "CStrataICU", "StrataPlatform", "Locking", system, log]
        ),
        // The async display core; knows no Wayland: layers, transactions, the frame clock, the host,
        // composition, buffers, the headless backend, the display link.
        .target(name: "StrataCore", dependencies: ["StrataRender", "StrataPlatform", "Locking", system, log]),
        // Widgets on the core: labels, mixed text and images, image views, the FPS label.
        .target(name: "StrataWidgets", dependencies: ["StrataCore", "StrataRender", "Locking"]),
        // The Wayland side: session, windows and their decorations, the shm backend, embedding, seats,
        // pointer, keyboard, touch and cursors.
        .target(
            name: "StrataWayland",
            dependencies: ["StrataCore", "StrataWidgets", "StrataDesktop", "WaylandClient", "StrataPlatform", "CXKBCommon", "CWaylandCursor", system, log]
        ),
        // The one module an app imports: everything above, re-exported.
        .target(name: "Strata", dependencies: ["StrataWayland", "StrataWidgets", "StrataDesktop", "StrataDBus", "StrataCore", "StrataRender", "WaylandClient", "StrataPlatform", system]),

        // Examples.
        .executableTarget(name: "wayland-info", dependencies: ["WaylandClient"], path: "Examples/wayland-info"),
        .executableTarget(name: "strata-demo", dependencies: ["Strata"], path: "Examples/strata-demo", exclude: ["screenshot.png"]),
        .executableTarget(name: "embed-host", dependencies: ["Strata"], path: "Examples/embed-host"),
        // The README's main demo: the feed, its model and cells in a library the tests use too.
        .target(name: "FeedKit", dependencies: ["Strata", "Locking"], path: "Examples/feed/FeedKit"),
        .executableTarget(name: "feed", dependencies: ["FeedKit", "Strata"], path: "Examples/feed/App"),
        // The gallery: its controls in a library the benchmark's memory subject builds too.
        .target(name: "GalleryKit", dependencies: ["Strata"], path: "Examples/gallery/GalleryKit"),
        .executableTarget(name: "gallery", dependencies: ["GalleryKit", "Strata"], path: "Examples/gallery/App"),
        // The shortest whole app: a header, a button, a list of rows declared as specs, a footer.
        .executableTarget(name: "reading-list", dependencies: ["Strata"], path: "Examples/reading-list", exclude: ["screenshot.png"]),
        // Photos in a waterfall grid with batch fetching.
        .executableTarget(name: "photo-grid", dependencies: ["FeedKit", "Strata"], path: "Examples/photo-grid", exclude: ["screenshot.png"]),
        .executableTarget(name: "headless-scene", dependencies: ["Strata"], path: "Examples/headless-scene", exclude: ["screenshot.png"]),

        // Tests.
        .target(name: "WaylandTestSupport", dependencies: ["WaylandClient", "StrataPlatform", "CLinux", "CWaylandServer", "CXKBCommon", "Locking"], path: "Tests/WaylandTestSupport"),
        .testTarget(
            name: "WaylandScannerTests",
            dependencies: ["WaylandScanner", "StrataPlatform"],
            resources: [.copy("Fixtures")]
        ),
        // One image decode's peak memory, measured in a process of its own.
        .executableTarget(name: "decode-probe", dependencies: ["StrataRender"], path: "Tests/DecodeProbe"),
        .executableTarget(name: "main-thread-probe", dependencies: ["StrataPlatform", "CLinux"], path: "Tests/MainThreadProbe"),
        .testTarget(
            name: "WaylandClientTests",
            dependencies: [
                "WaylandClient", "WaylandTestSupport", "CWaylandClient", "StrataPlatform",
                system,
            ]
        ),
        // Golden-image comparison shared by the render and core tests.
        .target(name: "RenderTestSupport", dependencies: ["StrataRender", "StrataPlatform"], path: "Tests/RenderTestSupport"),
        // Golden images and test fonts are read from the source tree by path, so they are excluded, not resources.
        .testTarget(name: "StrataRenderTests", dependencies: ["StrataRender", "RenderTestSupport", "StrataPlatform", system], exclude: ["Golden", "Fonts", "ImageFiles"]),
        .testTarget(name: "StrataPlatformTests", dependencies: ["StrataPlatform", "WaylandTestSupport", "main-thread-probe", system]),
        // A headless host and recording painters, shared by the core and widget tests.
        .target(name: "CoreTestSupport", dependencies: ["StrataCore", "Locking"], path: "Tests/CoreTestSupport"),
        // The core alone, with no Wayland anywhere in its dependencies.
        .testTarget(name: "StrataCoreTests", dependencies: ["StrataCore", "CoreTestSupport", "Locking", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "CoreTestSupport", "Locking", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "FeedTests", dependencies: ["FeedKit", "Strata", "CoreTestSupport", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "GalleryKitTests", dependencies: ["GalleryKit", "Strata", "CoreTestSupport", "RenderTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "WindowTests", dependencies: ["Strata", "WaylandTestSupport", "RenderTestSupport", "embed-host"]),
        // Input end to end under the headless sway Scripts/test starts: a raw client, and a driver
        // making real wl_pointer and wl_keyboard events through sway's virtual devices. The driver's
        // bindings (Generated/, from Tests/Protocols) live here, not in a support target, because
        // they subclass Proxy through @testable, which a release build of a plain target refuses.
        .testTarget(
            name: "InputEndToEndTests",
            dependencies: [
                "WaylandClient", "WaylandProtocols", "WaylandTestSupport", "StrataPlatform", "StrataRender", "RenderTestSupport",
                "CWaylandClient", "CXKBCommon", "CLinux", system,
                // Orca's session bus, for the screen-reader test.
                "DBusTestSupport",
                // Run as subprocesses under sway, driven by the virtual devices.
                "gallery", "embed-host",
            ]
        ),
        // Fuzzing: the targets, shared by the libFuzzer build Scripts/fuzz makes of strata-fuzz and by
        // FuzzCorpusTests, which replays every committed corpus input (crashes found become inputs).
        .target(
            name: "FuzzTargets",
            dependencies: ["StrataRender", "StrataWayland", "StrataPlatform", "WaylandClient", "WaylandScanner", "WaylandTestSupport", "CXKBCommon"],
            path: "Tests/Fuzz/FuzzTargets"
        ),
        .executableTarget(name: "strata-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/strata-fuzz"),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"]),
        // A private dbus-daemon per test, and pumping a loop until the bus has answered.
        .target(name: "DBusTestSupport", dependencies: ["StrataDBus", "StrataPlatform", "WaylandTestSupport"], path: "Tests/DBusTestSupport"),
        // The D-Bus layer against a real daemon, with this layer serving the other end.
        .testTarget(name: "StrataDBusTests", dependencies: ["StrataDBus", "DBusTestSupport", "StrataPlatform"]),
        // The desktop's appearance: a stand-in portal scripted to misbehave, and the real
        // xdg-desktop-portal with its GTK backend on a private bus, driven by gsettings.
        .testTarget(
            name: "AccessibilityEndToEndTests",
            dependencies: ["Strata", "GalleryKit", "FeedKit", "DBusTestSupport", "WaylandTestSupport"],
            exclude: ["atspi_client.py"]
        ),
        .testTarget(
            name: "StrataDesktopTests",
            dependencies: ["StrataDesktop", "StrataDBus", "CAtspiConstants", "StrataWidgets", "DBusTestSupport", "CoreTestSupport", "RenderTestSupport",
                           "WaylandTestSupport", "StrataPlatform"]
        ),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CXKBCommon", "CPixman", "CFreeType", "CFontconfig", "CHarfBuzz", "CPNG"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
