import Foundation
import Metrics

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The server's metrics, recorded through swift-metrics into its own Prometheus registry (not the
/// process-wide `MetricsSystem`, so two servers in one process keep separate counts) and written
/// at `GET /metrics` in Prometheus's text format:
///
/// - `nearby_http_requests_total{route,status}`: requests answered, by route template and status;
/// - `nearby_http_request_duration_seconds{route}`: a histogram of the time to the response head
///   (a streamed body keeps flowing after it);
/// - `nearby_http_errors_total{route,kind}`: answers ≥ 400, kind `client` (4xx), `timeout` (503
///   after `--timeout`) or `server` (other 5xx);
/// - `nearby_cache_generation`, `nearby_cache_places`: what is being served;
/// - `nearby_reloads_total{result}`: reloads after another process's import, `ok` or `failed`;
/// - `nearby_large_answers_writing`, `nearby_large_answers_waiting`, `nearby_large_answers_open`:
///   streamed answers (pages of more than 2,000 rows) writing now (at most `--max-large-answers`),
///   waiting in line for a place, and admitted and not yet ended (their clients reading or not);
/// - with `--sync`: `nearby_sync_runs_total{outcome}` (`complete`, `stopped`, `failed`),
///   `nearby_sync_last_run_timestamp_seconds`, `nearby_sync_last_complete_timestamp_seconds` (Unix time),
///   `nearby_sync_last_places{change}` (`added`, `updated`, `deleted` by the last run) and
///   `nearby_sync_last_requests`;
/// - with `--fallback`: `nearby_upstream_fetches_total{result}` (`ok`, `failed`).
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let generation: Gauge
    private let places: Gauge
    private let reloaded: Counter
    private let reloadFailed: Counter
    private let largeWriting: Gauge
    private let largeWaiting: Gauge
    private let largeOpen: Gauge

    /// Histogram buckets from 50 µs (a cached radius query over loopback) to 10 s (the default deadline).
    static let buckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
        .seconds(10),
    ]

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        self.factory = factory
        generation = Gauge(label: "nearby_cache_generation", factory: factory)
        places = Gauge(label: "nearby_cache_places", factory: factory)
        reloaded = Counter(label: "nearby_reloads_total", dimensions: [("result", "ok")], factory: factory)
        reloadFailed = Counter(label: "nearby_reloads_total", dimensions: [("result", "failed")], factory: factory)
        largeWriting = Gauge(label: "nearby_large_answers_writing", factory: factory)
        largeWaiting = Gauge(label: "nearby_large_answers_waiting", factory: factory)
        largeOpen = Gauge(label: "nearby_large_answers_open", factory: factory)
        largeAnswers(writing: 0, waiting: 0, open: 0)
    }

    /// A background sync run ended (`SyncService`). Counts only: no message, so no secret, reaches the metrics.
    func syncFinished(_ result: Result<SyncRun, any Error>) {
        let outcome: String
        switch result {
        case .success(let run): outcome = run.stopped == nil ? "complete" : "stopped"
        case .failure: outcome = "failed"
        }
        Counter(label: "nearby_sync_runs_total", dimensions: [("outcome", outcome)], factory: factory).increment()
        let now = Date().timeIntervalSince1970
        Gauge(label: "nearby_sync_last_run_timestamp_seconds", factory: factory).record(now)
        guard case .success(let run) = result else { return }
        if run.stopped == nil {
            Gauge(label: "nearby_sync_last_complete_timestamp_seconds", factory: factory).record(now)
        }
        for (change, n) in [("added", run.added), ("updated", run.updated), ("deleted", run.deleted)] {
            Gauge(label: "nearby_sync_last_places", dimensions: [("change", change)], factory: factory).record(n)
        }
        Gauge(label: "nearby_sync_last_requests", factory: factory).record(run.requests)
    }

    /// One fetch of an area from upstream (`UpstreamAreas`) ended.
    func upstreamFetch(ok: Bool) {
        Counter(
            label: "nearby_upstream_fetches_total", dimensions: [("result", ok ? "ok" : "failed")], factory: factory
        )
        .increment()
    }

    /// The large answers now writing, waiting for a place, and open (`LargeAnswers`).
    func largeAnswers(writing: Int, waiting: Int, open: Int) {
        largeWriting.record(writing)
        largeWaiting.record(waiting)
        largeOpen.record(open)
    }

    /// The handles one (route, status, timed out) records into, made once: making them per request
    /// (a registry lookup under its lock, labels built and compared) costs more than the recording.
    private struct Handles {
        let requests: Counter
        let duration: Timer
        let errors: Counter?
    }
    private struct HandleKey: Hashable {
        let route: String, status: Int, timedOut: Bool
    }
    private let handlesLock = NSLock()
    nonisolated(unsafe) private var handles: [HandleKey: Handles] = [:]

    /// One answered request: `route` is the path template (`/v1/places/{id}`), or `other` for unknown paths.
    func request(route: String, status: Int, nanoseconds: Int64, timedOut: Bool) {
        let key = HandleKey(route: route, status: status, timedOut: timedOut)
        let h = handlesLock.withLock {
            if let h = handles[key] { return h }
            let kind = timedOut ? "timeout" : status < 500 ? "client" : "server"
            let h = Handles(
                requests: Counter(
                    label: "nearby_http_requests_total", dimensions: [("route", route), ("status", String(status))],
                    factory: factory),
                duration: Timer(
                    label: "nearby_http_request_duration_seconds", dimensions: [("route", route)], factory: factory),
                errors: status >= 400
                    ? Counter(
                        label: "nearby_http_errors_total", dimensions: [("route", route), ("kind", kind)],
                        factory: factory) : nil)
            handles[key] = h
            return h
        }
        h.requests.increment()
        h.duration.recordNanoseconds(nanoseconds)
        h.errors?.increment()
    }

    /// The generation now served (at start and after each reload).
    func serving(_ snapshot: EngineSnapshot) {
        generation.record(snapshot.generation)
        places.record(snapshot.count)
    }

    func reload(succeeded: Bool) { (succeeded ? reloaded : reloadFailed).increment() }

    /// The Prometheus text exposition of every metric.
    func text() -> [UInt8] {
        var out: [UInt8] = []
        registry.emit(into: &out)
        return out
    }
}
