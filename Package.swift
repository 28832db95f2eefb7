// swift-tools-version: 6.1
import PackageDescription

// Dependencies point one way (ARCHITECTURE.md):
//   NearbyCore ← NearbyStore ← NearbyKit ← NearbyBench ← nearby
//   NearbyCore ← NearbyRegions ← NearbyKit ← NearbyServer ← nearby
//   NearbyCore, NearbyRegions ← NearbyTiles ← NearbyKit (vector tiles; zlib through CZlib)
//   NearbyCore ← NearbyStore ← NearbyPostGIS ← NearbyServer, nearby
//   NearbyCore ← NearbyCarousel ← NearbyBench, nearby
//   NearbyKit ← NearbySync ← nearby (AsyncHTTPClient: `nearby sync`; NearbyKit does not depend on it;
//     NearbyServer neither: `nearby serve --sync/--fallback` fills in the server's BackgroundSync and
//     UpstreamFallback with NearbySync in the executable)
//   NearbyReplay ← nearby, NearbySyncTests (a TourAPI and Kakao stand-in on loopback: tests, bench-sync.sh)
// PostgreSQL is opt-in: NearbyKit neither depends on NearbyPostGIS nor links libpq (NearbyCLITests's
// PackageGraphTests holds it to that). Tests: NearbyCore, NearbyStore ← NearbyTestSupport ← the test targets.
// No target carries unsafe flags, so the products can be used with `.package(url:…, from:)`.
let package = Package(
    name: "Nearby",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "NearbyCore", targets: ["NearbyCore"]),
        .library(name: "NearbyStore", targets: ["NearbyStore"]),
        .library(name: "NearbyKit", targets: ["NearbyKit"]),
        .library(name: "NearbyRegions", targets: ["NearbyRegions"]),
        .library(name: "NearbyTiles", targets: ["NearbyTiles"]),
        .library(name: "NearbyCarousel", targets: ["NearbyCarousel"]),
        .library(name: "NearbyServer", targets: ["NearbyServer"]),
        .library(name: "NearbyPostGIS", targets: ["NearbyPostGIS"]),
        .executable(name: "nearby", targets: ["nearby"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // PROJ's headers only (from /usr/include): its library is loaded with dlopen when first used, so a
        // process that never measures a geodesic or projected distance does not pay for loading it.
        .systemLibrary(name: "CPROJ", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // One inline function over a header: the compiler's prefetch hint (PlaceRows.forEachID).
        .systemLibrary(name: "CPrefetch"),
        // glibc's malloc_trim and mallopt over a header (FreedMemory, MallocArenas).
        .systemLibrary(name: "CMalloc"),
        // Linux's CPU affinity system calls over a header (EventLoopAffinity, `nearby serve --pin-event-loops`).
        .systemLibrary(name: "CThreadAffinity"),
        .target(name: "NearbyCore", dependencies: ["CPROJ", "CPrefetch", "CMalloc"]),
        .target(name: "NearbyStore", dependencies: ["NearbyCore", "CSQLite"]),
        .target(
            name: "NearbyPostGIS", dependencies: ["NearbyCore", "NearbyStore", "CLibPQ"],
            resources: [.copy("Migrations")]),
        .target(
            name: "NearbyKit",
            dependencies: [
                "NearbyCore", "NearbyStore", "NearbyRegions", "NearbyTiles",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(name: "NearbyTiles", dependencies: ["NearbyCore", "NearbyRegions", "CZlib"]),
        .target(name: "NearbyCarousel", dependencies: ["NearbyCore"]),
        .target(name: "NearbyRegions", dependencies: ["NearbyCore"]),
        .target(name: "NearbyBench", dependencies: ["NearbyKit", "NearbyCarousel"]),
        .target(
            name: "NearbySync",
            dependencies: [
                "NearbyKit", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .target(name: "NearbyReplay"),
        .target(
            name: "NearbyServer",
            dependencies: [
                "NearbyKit", "NearbyPostGIS", "CMalloc", "CThreadAffinity",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The map page's HTML, JavaScript and CSS, compiled into the binary (`PackageResources`).
            resources: [.embedInCode("MapPage")]
        ),
        .executableTarget(
            name: "nearby",
            dependencies: [
                "NearbyKit", "NearbyBench", "NearbyCarousel", "NearbyServer", "NearbyPostGIS", "NearbySync",
                "NearbyReplay", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "NearbyTestSupport", dependencies: ["NearbyCore", "NearbyStore", "NearbyRegions"],
            path: "Tests/NearbyTestSupport"),
        .testTarget(
            name: "NearbyCoreTests", dependencies: ["NearbyCore", "NearbyTestSupport"], exclude: ["Fixtures"],
            linkerSettings: [.linkedLibrary("_FoundationICU")]),  // ICU's ko collation, the reference for --sort title
        .testTarget(
            name: "NearbyStoreTests", dependencies: ["NearbyStore", "NearbyCore", "NearbyTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "NearbyKitTests", dependencies: ["NearbyKit", "NearbyStore", "NearbyCore", "NearbyTestSupport"]),
        .testTarget(
            name: "NearbyBenchTests", dependencies: ["NearbyBench", "NearbyKit", "NearbyTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "NearbyCarouselTests", dependencies: ["NearbyCarousel", "NearbyCore"]),
        .testTarget(
            name: "NearbyServerTests",
            dependencies: [
                "NearbyServer", "NearbyKit", "NearbyPostGIS", "NearbyTestSupport",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NearbyRegionsTests", dependencies: ["NearbyRegions", "NearbyCore", "NearbyTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "NearbyTilesTests", dependencies: ["NearbyTiles", "NearbyRegions", "NearbyCore", "NearbyTestSupport"]),
        .testTarget(name: "NearbyPostGISTests", dependencies: ["NearbyPostGIS", "NearbyKit", "NearbyTestSupport"]),
        .testTarget(
            name: "NearbySyncTests", dependencies: ["NearbySync", "NearbyReplay", "NearbyKit", "NearbyTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "NearbyCLITests", dependencies: ["nearby", "NearbyBench", "NearbyReplay", "NearbyTestSupport"]),
    ]
)
