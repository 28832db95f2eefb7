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
/// The feed's columns wait in the snapshot writer's spill file, not in memory (`SnapshotWriter`), so
/// an import of any size is fed: its peak memory is the larger of the import's and the snapshot's, not
/// their sum (BENCHMARKS.md, "Writing the snapshot from a spilled feed").
public final class SnapshotFeed {
    private var writer: SnapshotWriter?
    private(set) var stamp: IndexSnapshot.Stamp?

    public init() {}

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
