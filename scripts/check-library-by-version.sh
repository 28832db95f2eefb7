#!/usr/bin/env bash
# Shows that Nearby can be used as a library by version, as another package would: clones this
# repository's HEAD, tags it with the version `nearby --version` reports (a release tag), and builds
# and runs a small package that depends on it with `.package(url:…, from:)` — which SwiftPM refuses
# when a product carries unsafe flags. Usage: scripts/check-library-by-version.sh [WORKDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
version="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$root/Sources/NearbyKit/Version.swift")"
rm -rf "$work/nearby" "$work/app"
git clone --quiet "$root" "$work/nearby"
git -C "$work/nearby" tag -f "$version" >/dev/null
mkdir -p "$work/app/Sources/app"
cat > "$work/app/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "app",
    dependencies: [.package(url: "file://$work/nearby", from: "$version")],
    targets: [.executableTarget(name: "app", dependencies: [.product(name: "NearbyKit", package: "nearby")])]
)
SWIFT
cat > "$work/app/Sources/app/main.swift" <<'SWIFT'
import NearbyKit

// The use-cases with one import: the request parser, an engine, the output layer.
var sampler = QuerySampler(seed: 1)
let engine = MemoryEngine(places: sampler.places(1000))
let query = try QueryParameters.parse([("lat", "37.5665"), ("lon", "126.978"), ("radius", "5000"), ("limit", "3")])
let answer = try engine.run(query)
var out = PlaceWriter(format: .jsonl, fields: try PlaceJSON.Selection(names: ["id", "distance"]))
try out.write(answer, query: query, tookMs: 0)
try out.finish()
print("total \(answer.total)")
SWIFT
cd "$work/app"
swift build -q
swift run -q app
echo "library by version $version: OK ($work)"
