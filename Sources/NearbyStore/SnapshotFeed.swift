import NearbyCore

/// The index snapshot of an import into an empty cache, collected as its rows are written, so that
/// `CacheSnapshot.update` writes it without reading a million rows back from SQLite (and verifying
/// their checksums) right after the same process wrote them.
///
/// Only a write that begins on an empty cache and does nothing but insert new ids fills it: then the
/// places inserted are exactly the cache's rows. Anything else (a repeated id, a delete, a detail
/// merged into a cached place) empties it and the snapshot is read from the cache as before; merging
/// a write into an existing snapshot would need the old rows' text fields, which the snapshot does not
/// keep. The feed is stamped with the generation the write committed, so a write by another process
/// in between is noticed (`update` then reads the cache).
///
/// The feed holds the snapshot's columns (about 130 B a place) on top of the import's own working set,
/// so it gives up past `maximumPlaces`: larger imports read the cache back, which keeps the 1M import
/// within its peak-memory budget (BENCHMARKS.md) at the price of the read-back's time.
public final class SnapshotFeed {
    /// 50,000 places by default (~6.5 MB of columns): at 250,000 (~33 MB) the 1M import's peak went past
    /// its 200 MB budget, since the feed is at its largest when the import's own working set is.
    public let maximumPlaces: Int
    private var writer: SnapshotWriter?
    private(set) var stamp: IndexSnapshot.Stamp?

    public init(maximumPlaces: Int = 50_000) { self.maximumPlaces = maximumPlaces }

    /// Whether the write filled the feed (and `CacheSnapshot.update` will not read the cache back).
    var isFilled: Bool { writer != nil }

    func fill(_ writer: SnapshotWriter, stamp: IndexSnapshot.Stamp) {
        self.writer = writer
        self.stamp = stamp
    }

    /// The collected snapshot when it was made for `wanted`, handed over once.
    func take(for wanted: IndexSnapshot.Stamp) -> SnapshotWriter? {
        defer { writer = nil; stamp = nil }
        return stamp == wanted ? writer : nil
    }
}
