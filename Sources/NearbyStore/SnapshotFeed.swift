import Dispatch
import NearbyCore

/// The index snapshot of an import into an empty cache, collected as its rows are written, so that
/// `CacheSnapshot.update` writes it without reading a million rows back from SQLite (and verifying
/// their checksums) right after the same process wrote them.
///
/// Only a write that begins on an empty cache and does nothing but insert new ids fills it: then the
/// places inserted are exactly the cache's rows. Anything else (a repeated id, a delete, a detail
/// merged into a cached place) empties it and the snapshot is read from the cache (`CacheSnapshot`); merging
/// a write into an existing snapshot would need the old rows' text fields, which the snapshot does not
/// keep. The feed is stamped with the generation the write committed, so a write by another process
/// in between is noticed (`update` then reads the cache).
///
/// The feed's columns wait in the snapshot writer's spill file, not in memory (`SnapshotWriter`), so
/// an import of any size is fed: its peak memory is the larger of the import's and the snapshot's, not
/// their sum (BENCHMARKS.md, "Import and export").
public final class SnapshotFeed: @unchecked Sendable {
    // @unchecked: `collecting` is touched only on `queue`; `batch` and `isCollecting` only by the
    // cache writer's thread; `writer` and `stamp` after `finish`, which waits for `queue`.
    /// The places are appended on a thread of their own (folding titles, coding keys, spilling),
    /// in batches, so the import's writer thread only hands them over.
    private let queue = DispatchQueue(label: "nearby.snapshot-feed")
    /// At most two batches wait for `queue`: a slow feed slows the import instead of holding places.
    private let batchesInFlight = DispatchSemaphore(value: 2)
    private var collecting: SnapshotWriter?
    private var batch: [Place] = []
    private var isCollecting = false
    private var writer: SnapshotWriter?
    private(set) var stamp: IndexSnapshot.Stamp?

    public init() {}

    /// Whether the write filled the feed (and `CacheSnapshot.update` will not read the cache back).
    var isFilled: Bool { writer != nil }

    /// Starts collecting into `writer` (the write began on an empty cache).
    func begin(_ writer: SnapshotWriter) {
        collecting = writer
        isCollecting = true
    }

    /// Adds a place the write inserted.
    func add(_ place: Place) {
        // The snapshot holds the Korean places only (`TourLanguage`).
        guard isCollecting, TourLanguage.isKorean(id: place.id) else { return }
        batch.append(place)
        if batch.count == Self.batchSize { handOver() }
    }

    /// Stops collecting: the write did more than insert new ids.
    func drop() {
        guard isCollecting else { return }
        isCollecting = false
        batch = []
        queue.async { [self] in collecting = nil }
    }

    /// Ends the write: what was collected is the snapshot of the cache state `stamp`.
    func finish(stamp: IndexSnapshot.Stamp) {
        guard isCollecting else { return }
        handOver()
        queue.sync {
            writer = collecting
            collecting = nil
        }
        isCollecting = false
        self.stamp = stamp
    }

    private func handOver() {
        let places = batch
        batch = []
        batch.reserveCapacity(Self.batchSize)
        batchesInFlight.wait()
        queue.async { [self] in
            for p in places { collecting?.append(p) }
            batchesInFlight.signal()
        }
    }

    static let batchSize = 1024

    /// The collected snapshot when it was made for `wanted`, handed over once.
    func take(for wanted: IndexSnapshot.Stamp) -> SnapshotWriter? {
        defer {
            writer = nil
            stamp = nil
        }
        return stamp == wanted ? writer : nil
    }
}
