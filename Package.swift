// swift-tools-version: 6.1
import PackageDescription

// Dependency direction: NearbyCore ← NearbyStore ← nearby (CLI). NearbyCarousel and NearbyRegions depend on NearbyCore only.
let package = Package(
    name: "Nearby",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "NearbyCore", targets: ["NearbyCore"]),
        .library(name: "NearbyStore", targets: ["NearbyStore"]),
        .library(name: "NearbyCarousel", targets: ["NearbyCarousel"]),
        .library(name: "NearbyRegions", targets: ["NearbyRegions"]),
        .executable(name: "nearby", targets: ["nearby"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .target(
            name: "NearbyCore",
            dependencies: ["CPROJ", .product(name: "Collections", package: "swift-collections")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        .target(name: "NearbyStore", dependencies: ["NearbyCore", "CSQLite"]),
        .target(name: "NearbyCarousel", dependencies: ["NearbyCore"]),
        .target(name: "NearbyRegions", dependencies: ["NearbyCore"]),
        .executableTarget(
            name: "nearby",
            dependencies: [
                "NearbyCore", "NearbyStore", "NearbyCarousel", "NearbyRegions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "NearbyCoreTests", dependencies: ["NearbyCore"]),
        .target(name: "NearbyTestSupport", path: "Tests/NearbyTestSupport"),
        .testTarget(name: "NearbyStoreTests", dependencies: ["NearbyStore", "NearbyCore", "NearbyTestSupport"]),
        .testTarget(name: "NearbyCarouselTests", dependencies: ["NearbyCarousel", "NearbyCore"]),
        .testTarget(
            name: "NearbyRegionsTests", dependencies: ["NearbyRegions", "NearbyCore"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "NearbyCLITests", dependencies: ["nearby", "NearbyTestSupport"]),
    ]
)
