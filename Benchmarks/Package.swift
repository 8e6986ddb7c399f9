// swift-tools-version: 6.1
// Strata's benchmark program, in a package of its own so that its peers' dependencies (cairo,
// pango) never reach the toolkit. It depends on Strata by path.
import PackageDescription

let package = Package(
    name: "StrataBenchmarks",
    dependencies: [.package(name: "Strata", path: "..")],
    targets: [
        .systemLibrary(name: "CBenchCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CBenchPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(name: "CBenchFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // The peers in C: cairo + pango, and the raw pixman + FreeType floor.
        .target(name: "Peers", dependencies: ["CBenchCairo", "CBenchPixman", "CBenchFreeType"],
                linkerSettings: [.linkedLibrary("m")]),
        // Measurement helpers with no toolkit in them: percentiles, the report, the table.
        .target(name: "BenchKit"),
        .executableTarget(name: "strata-bench", dependencies: [
            "BenchKit", "Peers", .product(name: "Strata", package: "Strata"),
        ]),
        .testTarget(name: "BenchKitTests", dependencies: ["BenchKit"]),
    ],
    swiftLanguageModes: [.v6]
)
