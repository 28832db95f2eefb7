import Foundation
import NearbyKit

/// The markdown tables `nearby bench report` prints: one per query command and workload size with
/// every engine side by side (and the sqlite/memory ratio), setup costs, answer agreement between
/// engines, sort/filter items and carousel throughput.
public struct BenchReportTables {
    public let docs: [BenchDocument]

    public init(_ docs: [BenchDocument]) { self.docs = docs }

    public func markdown() -> String {
        var out = ""
        let queryDocs = docs.filter { ["radius", "knn", "bbox"].contains($0.command) }
        let keys = Set(queryDocs.map(Key.init))
        for key in keys.sorted() {
            let run = queryDocs.filter { Key($0) == key }
                .sorted { ($0.engine ?? "") < ($1.engine ?? "") }
            out += latencyTable(key, run) + "\n"
        }
        if !queryDocs.isEmpty { out += setupTable(queryDocs) + "\n" }
        for d in docs where d.command == "sortfilter" { out += sortFilterTable(d) + "\n" }
        for d in docs where d.command == "carousel" {
            if let c = d.carousel {
                out +=
                    "carousel: \(c.events) events, median of \(c.runs) runs: \(Int(c.eventsPerSecond)) events/s (\(c.selections) selections)\n\n"
                if let r = c.requery {
                    out +=
                        "carousel location re-query: \(r.places) places, \(r.queries) re-queries in \(r.updates) updates: "
                        + "\(String(format: "%.1f", r.microsPerQuery)) µs per re-query (median of \(c.runs) runs)\n\n"
                }
            }
        }
        return out
    }

    /// One latency table: a command and its variant on one workload size and thread count.
    public struct Key: Hashable, Comparable {
        var command: String, places: Int, threads: Int
        init(_ d: BenchDocument) {
            command = d.command + (d.variant.map { " (\($0))" } ?? "")
            places = d.workload?.placeCount ?? 0
            threads = d.threads ?? 1
        }
        public static func < (a: Key, b: Key) -> Bool {
            (a.command, a.places, a.threads) < (b.command, b.places, b.threads)
        }
    }

    private func latencyTable(_ key: Key, _ run: [BenchDocument]) -> String {
        let engines = run.map { $0.engine ?? "?" }
        var header = "| group | queries |"
        var rule = "|---|---:|"
        for e in engines {
            header += " \(e) p50 µs | \(e) p90 µs | \(e) p99 µs | \(e) q/s |"
            rule += "---:|---:|---:|---:|"
        }
        let memory = run.firstIndex { $0.engine == "memory" }
        let sqlite = run.firstIndex { $0.engine == "sqlite" }
        let ratio = memory != nil && sqlite != nil
        if ratio {
            header += " p50 sqlite/memory |"
            rule += "---:|"
        }
        var out =
            "#### \(key.command), \(Self.count(key.places)) places, \(key.threads) thread\(key.threads == 1 ? "" : "s")\n\n\(header)\n\(rule)\n"
        for g in Self.ordered(run[0].groups ?? []) {
            let row = run.map { d in d.groups?.first { $0.name == g.name } }
            out += "| \(g.name) | \(g.queries) |"
            for r in row {
                guard let r else {
                    out += " – | – | – | – |"
                    continue
                }
                out +=
                    " \(Self.num(r.latencyMicros.p50)) | \(Self.num(r.latencyMicros.p90)) | \(Self.num(r.latencyMicros.p99)) | \(Self.num(r.queriesPerSecond)) |"
            }
            if ratio, let m = row[memory!], let s = row[sqlite!], m.latencyMicros.p50 > 0 {
                out += " \(Self.num(s.latencyMicros.p50 / m.latencyMicros.p50))× |"
            } else if ratio {
                out += " – |"
            }
            out += "\n"
        }
        if run.count > 1, let first = run[0].answers {
            let others = run.dropFirst().map { ($0.engine ?? "?", $0.answers ?? []) }
            for (engine, answers) in others {
                let agree = zip(first, answers).filter { $0.total == $1.total && $0.checksum == $1.checksum }.count
                out +=
                    "\nAnswers: \(engines[0]) and \(engine) agree on \(agree) of \(first.count) (total and checksum).\n"
            }
        }
        return out
    }

    private func setupTable(_ docs: [BenchDocument]) -> String {
        var out =
            "| command | places | engine | threads | load s | import s | build s | RSS after build MiB | build bytes/place | peak RSS MiB |\n"
        out += "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for d in docs.sorted(by: {
            ($0.command, $0.workload?.placeCount ?? 0, $0.engine ?? "") < (
                $1.command, $1.workload?.placeCount ?? 0, $1.engine ?? ""
            )
        }) {
            let mib = { (k: Int?) in k.map { Self.num(Double($0) / 1024) } ?? "–" }
            out +=
                "| \(Key(d).command) | \(Self.count(d.workload?.placeCount ?? 0)) | \(d.engine ?? "?") | \(d.threads ?? 1) | "
            out +=
                "\(d.seconds.load.map(Self.num) ?? "–") | \(d.seconds.import.map(Self.num) ?? "–") | \(d.seconds.build.map(Self.num) ?? "–") | "
            out +=
                "\(mib(d.memory.afterBuild?.rssKiB)) | \(d.memory.buildBytesPerPlace.map(Self.num) ?? "–") | \(mib(d.memory.afterQueries?.hwmKiB)) |\n"
        }
        return out
    }

    private func sortFilterTable(_ d: BenchDocument) -> String {
        var out = "#### sortfilter, \(Self.count(d.workload?.placeCount ?? 0)) places, \(d.engine ?? "?") engine\n\n"
        out += "| item | what | median ms | min ms | rows | total | checksum |\n|---|---|---:|---:|---:|---:|---|\n"
        for i in d.items ?? [] {
            out +=
                "| (\(i.name)) | \(i.description) | \(Self.num(i.medianMicros / 1000)) | \(Self.num(i.minMicros / 1000)) | \(i.rows) | \(i.total.map(String.init) ?? "not counted") | `\(i.checksum)` |\n"
        }
        return out
    }

    /// "all" first, then groups by the number in their name (radius=500 before radius=2000, k=1 before k=10).
    public static func ordered(_ groups: [BenchGroup]) -> [BenchGroup] {
        func number(_ g: BenchGroup) -> Double { Double(g.name.split(separator: "=").last ?? "") ?? -1 }
        return groups.sorted { number($0) < number($1) }
    }

    /// Three significant digits, no exponent: 0.0123, 1.23, 123, 12300.
    public static func num(_ v: Double) -> String {
        if v == 0 { return "0" }
        if abs(v) >= 1000 { return String(Int(v.rounded())) }
        let digits = max(0, 2 - Int(floor(log10(abs(v)))))
        return String(format: "%.\(digits)f", v)
    }

    public static func count(_ n: Int) -> String {
        n >= 1_000_000 && n % 1_000_000 == 0
            ? "\(n / 1_000_000)M" : (n >= 1000 && n % 1000 == 0 ? "\(n / 1000)k" : "\(n)")
    }
}
