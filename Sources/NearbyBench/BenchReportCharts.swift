import NearbyKit

/// The charts `nearby bench report` draws from a set of bench documents.
public struct BenchReportCharts {
    public let radius: [BenchDocument]
    /// Every single-thread radius, knn and bbox run: each built the engine once.
    public let builds: [BenchDocument]

    public init(_ docs: [BenchDocument]) {
        builds = docs.filter {
            ["radius", "knn", "bbox"].contains($0.command) && ($0.threads ?? 1) == 1 && $0.variant == nil
        }
        radius = builds.filter { $0.command == "radius" }
            .sorted { ($0.workload?.placeCount ?? 0) < ($1.workload?.placeCount ?? 0) }
    }

    public var engines: [String] { Array(Set(radius.compactMap(\.engine))).sorted() }
    public var sizes: [Int] { Array(Set(radius.compactMap { $0.workload?.placeCount })).sorted() }
    public var sizeTicks: [(value: Double, label: String)] {
        sizes.map { (Double($0), BenchReportChart.compact(Double($0))) }
    }

    public var all: [(String, BenchReportChart)] {
        [
            ("latency-by-radius.svg", latencyByRadius), ("throughput-vs-size.svg", throughput),
            ("latency-vs-size.svg", latencyBySize), ("build-vs-size.svg", build),
        ]
    }

    /// Points (size, value) of one engine's radius documents.
    private func bySize(_ engine: String, _ value: (BenchDocument) -> Double?) -> [(x: Double, y: Double)] {
        radius.filter { $0.engine == engine }.compactMap { d in
            guard let n = d.workload?.placeCount, let v = value(d) else { return nil }
            return (Double(n), v)
        }
    }

    private func overall(_ d: BenchDocument) -> BenchGroup? { d.groups?.first { $0.name == "all" } }

    public var latencyByRadius: BenchReportChart {
        // The largest workload that the most engines ran, so the engines are compared on one chart.
        let engineCount = { (n: Int) in
            Set(self.radius.filter { $0.workload?.placeCount == n }.compactMap(\.engine)).count
        }
        let size = sizes.max { (engineCount($0), $0) < (engineCount($1), $1) } ?? 0
        var series: [BenchReportChart.Series] = []
        var radii: Set<Double> = []
        for d in radius where d.workload?.placeCount == size {
            let groups = (d.groups ?? []).compactMap { g in
                g.name.hasPrefix("radius=")
                    ? Double(g.name.dropFirst("radius=".count)).map { ($0, g.latencyMicros) } : nil
            }
            radii.formUnion(groups.map(\.0))
            for (n, (label, key)) in [
                ("p50", \LatencyStats.p50), ("p90", \LatencyStats.p90), ("p99", \LatencyStats.p99),
            ].enumerated() {
                series.append(
                    .init(
                        name: "\(d.engine ?? "?") \(label)", points: groups.map { ($0.0, $0.1[keyPath: key]) },
                        dashed: d.engine == "sqlite", colour: n))
            }
        }
        return BenchReportChart(
            title: "Radius query latency by radius (\(BenchReportChart.compact(Double(size))) places)",
            xLabel: "radius (m), workload mix of limits 0/30/100", yLabel: "latency per query (µs, log)",
            xTicks: radii.sorted().map { ($0, BenchReportChart.compact($0)) }, logX: true, logY: true, series: series)
    }

    public var throughput: BenchReportChart {
        BenchReportChart(
            title: "Radius queries per second vs places", xLabel: "places (log)",
            yLabel: "queries per second, 1 thread (log)",
            xTicks: sizeTicks, logX: true, logY: true,
            series: engines.map { e in
                .init(name: e, points: bySize(e) { overall($0)?.queriesPerSecond }, dashed: e == "sqlite")
            })
    }

    public var latencyBySize: BenchReportChart {
        BenchReportChart(
            title: "Radius query latency vs places", xLabel: "places (log)", yLabel: "latency per query (µs, log)",
            xTicks: sizeTicks, logX: true, logY: true,
            series: engines.flatMap { e in
                [
                    .init(
                        name: "\(e) p50", points: bySize(e) { overall($0)?.latencyMicros.p50 }, dashed: e == "sqlite",
                        colour: 0),
                    .init(
                        name: "\(e) p99", points: bySize(e) { overall($0)?.latencyMicros.p99 }, dashed: e == "sqlite",
                        colour: 2),
                ]
            })
    }

    /// Median over the runs of each size and engine (a noisy machine makes single builds unreliable).
    private func medianBySize(_ engine: String, _ value: (BenchDocument) -> Double?) -> [(x: Double, y: Double)] {
        let runs = builds.filter { $0.engine == engine }
        return Set(runs.compactMap { $0.workload?.placeCount }).sorted().map { n in
            (Double(n), LatencyStats.median(runs.filter { $0.workload?.placeCount == n }.compactMap(value)))
        }
    }

    public var build: BenchReportChart {
        var series: [BenchReportChart.Series] = engines.map { e in
            .init(name: "\(e) build", points: medianBySize(e) { $0.seconds.build }, dashed: e == "sqlite")
        }
        let imports = medianBySize("sqlite") { $0.seconds.import }
        if !imports.isEmpty { series.append(.init(name: "sqlite import", points: imports, dashed: true)) }
        return BenchReportChart(
            title: "Build time vs places (median of runs)", xLabel: "places (log)", yLabel: "seconds (log)",
            xTicks: sizeTicks, logX: true, logY: true, series: series)
    }
}
