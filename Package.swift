// swift-tools-version: 6.1
import PackageDescription

// Dependencies point one way (ARCHITECTURE.md):
//   NearbyCore ← NearbyStore ← NearbyKit ← NearbyBench ← nearby
//   NearbyCore ← NearbyCarousel ← NearbyBench
// No target carries unsafe flags, so the products can be used with `.package(url:…, from:)`.
let package = Package(
    name: "Nearby",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "NearbyCore", targets: ["NearbyCore"]),
        .library(name: "NearbyStore", targets: ["NearbyStore"]),
        .library(name: "NearbyKit", targets: ["NearbyKit"]),
        .library(name: "NearbyCarousel", targets: ["NearbyCarousel"]),
        .executable(name: "nearby", targets: ["nearby"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .target(name: "NearbyCore", dependencies: ["CPROJ"]),
        .target(name: "NearbyStore", dependencies: ["NearbyCore", "CSQLite"]),
        .target(name: "NearbyKit", dependencies: ["NearbyCore", "NearbyStore"]),
        .target(name: "NearbyCarousel", dependencies: ["NearbyCore"]),
        .target(name: "NearbyBench", dependencies: ["NearbyKit", "NearbyCarousel"]),
        .executableTarget(
            name: "nearby",
            dependencies: [
                "NearbyKit", "NearbyBench", "NearbyCarousel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "NearbyTestSupport", path: "Tests/NearbyTestSupport"),
        .testTarget(name: "NearbyCoreTests", dependencies: ["NearbyCore"]),
        .testTarget(name: "NearbyStoreTests", dependencies: ["NearbyStore", "NearbyKit", "NearbyTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "NearbyKitTests", dependencies: ["NearbyKit", "NearbyCore", "NearbyTestSupport"], exclude: ["Fixtures"],
                    linkerSettings: [.linkedLibrary("_FoundationICU")]),  // ICU's ko collation, the reference for --sort title
        .testTarget(name: "NearbyBenchTests", dependencies: ["NearbyBench"]),
        .testTarget(name: "NearbyCarouselTests", dependencies: ["NearbyCarousel", "NearbyCore"]),
        .testTarget(name: "NearbyCLITests", dependencies: ["nearby", "NearbyBench", "NearbyTestSupport"]),
    ]
)
