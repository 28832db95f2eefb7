// swift-tools-version: 6.1
import PackageDescription

// Micro benchmarks (ordo-one/benchmark): `swift package benchmark` from this folder.
// A separate package so the root package, its tests and its users never depend on `benchmark`.
let package = Package(
    name: "NearbyBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Nearby", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Places and queries shared by the benchmarks: generated, or the workload TSVs (see BENCHMARKS.md).
        .target(
            name: "Fixtures",
            dependencies: [
                .product(name: "NearbyCore", package: "Nearby"), .product(name: "NearbyStore", package: "Nearby"),
            ],
            path: "Fixtures"
        )
    ]
        + ["DistanceBenchmarks", "QueryBenchmarks", "FormatBenchmarks"].map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "Fixtures",
                    .product(name: "Benchmark", package: "benchmark"),
                    .product(name: "NearbyCore", package: "Nearby"),
                    .product(name: "NearbyStore", package: "Nearby"),
                ],
                path: "Benchmarks/\(name)",
                plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
            )
        }
)
