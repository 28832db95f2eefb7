import CPrefetch
import Foundation

/// Verifies the blocks of a mapped index snapshot (`IndexSnapshot`, "Checks") the first time a query
/// reads them. Readers ask before they read, at the coarsest grain their access allows, so that the
/// loads of a query's inner loops carry no test at all:
/// - a tree walk verifies a node's children's boxes once when it opens the node, and a leaf's points
///   (with their cosines and ranks) once before it measures them (`PackedRTree.View`);
/// - a mapped `Column` or `PackedColumn` read by row asks `holds` for the row's bytes: one relaxed
///   load of the block's state and a branch once the block is known good; ranges read as a buffer
///   ask `covers` once for the whole range.
/// A block not yet verified is hashed (`SnapshotHash`) under a lock and compared with its stored
/// checksum, out of line.
///
/// A damaged block is never read: the reader skips the node or leaf (a tree) or reads zeros instead
/// (a column); the verifier then holds the `failure`, which the engine turns into
/// `IndexSnapshot.Problem.damaged` before it answers (`PlaceTable.checkIntact`), so an answer never
/// comes from a damaged block.
public final class BlockVerifier: @unchecked Sendable {
    // @unchecked: `states` is read and written with atomic byte operations, the rest under `lock`
    // or immutable.
    /// Start of the mapping (file offset 0).
    @usableFromInline let start: UnsafeRawPointer
    /// log2 of the block size.
    @usableFromInline let shift: Int
    /// Per block: 0 not verified yet, 1 verified, 2 damaged.
    @usableFromInline let states: UnsafeMutablePointer<UInt8>
    @usableFromInline let blocks: Int
    /// 64 zero bytes: what a reader of a damaged block gets.
    @usableFromInline let zeros: UnsafeMutableRawPointer
    /// Bytes checked: `bodyStart ..< end` of the file; `sums` holds one checksum per block.
    let bodyStart: Int, end: Int
    let sums: UnsafeRawPointer
    /// Names the section at a file offset, for the failure's description.
    let sectionAt: (Int) -> String
    private let lock = NSLock()
    private var firstFailure: String? {
        didSet { nearby_store_release(failed, 1) }
    }
    /// 1 once `firstFailure` is set (under `lock`), so that `failure` answers an intact snapshot's
    /// every query without the lock. A thread that met a damaged block went through `verify`'s lock,
    /// after the failure was recorded, so its relaxed load of this byte sees it.
    private let failed: UnsafeMutablePointer<UInt8>

    init(
        start: UnsafeRawPointer, blockShift: Int, bodyStart: Int, end: Int, sums: UnsafeRawPointer,
        sectionAt: @escaping (Int) -> String
    ) {
        self.start = start
        shift = blockShift
        self.bodyStart = bodyStart
        self.end = end
        self.sums = sums
        self.sectionAt = sectionAt
        blocks = (end + (1 << blockShift) - 1) >> blockShift
        states = .allocate(capacity: max(1, blocks))
        states.initialize(repeating: 0, count: max(1, blocks))
        failed = .allocate(capacity: 1)
        failed.initialize(to: 0)
        zeros = .allocate(byteCount: 64, alignment: 16)
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
    }

    deinit {
        states.deallocate()
        failed.deallocate()
        zeros.deallocate()
    }

    /// Whether the `count` bytes at `p` (inside the checked part of the mapping) lie in good blocks,
    /// verifying the blocks not verified yet: one load per block once they are known good.
    @inlinable @inline(__always)
    public func covers(_ p: UnsafeRawPointer, _ count: Int) -> Bool {
        let offset = p - start
        var b = offset &>> shift
        let last = (offset &+ count &- 1) &>> shift
        while b <= last {
            if nearby_load_relaxed(states + b) != 1 { return verify(b, through: last) }
            b &+= 1
        }
        return true
    }

    /// `covers` for one value of `size` bytes, at most a block, inside the mapping (a row of a mapped
    /// column, whose range `MappedFile` and `IndexSnapshot` checked): the bytes span one block or two, so once they are known good this is one load of each end's state (the same
    /// byte, mostly), an and, and a branch; the rest is out of line.
    @inlinable @inline(__always)
    public func holds(_ p: UnsafeRawPointer, _ size: Int) -> Bool {
        let offset = p - start
        let first = offset &>> shift
        let last = (offset &+ size &- 1) &>> shift
        // States are 0, 1 and 2: only 1 has bit 0, so the and is 1 exactly when both are 1.
        if nearby_load_relaxed(states + first) & nearby_load_relaxed(states + last) == 1 { return true }
        return verify(first, through: last)
    }

    /// A zero value, read instead of one from a damaged block.
    @inlinable func zero<T: BitwiseCopyable>(_: T.Type) -> T {
        precondition(MemoryLayout<T>.size <= 64)
        return UnsafeRawPointer(zeros).loadUnaligned(as: T.self)
    }

    /// Verifies blocks `first ... last` not verified yet; false when any is damaged (or outside the file).
    @usableFromInline func verify(_ first: Int, through last: Int) -> Bool {
        guard first >= 0, last < blocks else { return fail("a read outside the checked part of the file") }
        lock.lock()
        defer { lock.unlock() }
        var ok = true
        for b in first...last {
            switch states[b] {
            case 1: continue
            case 2: ok = false
            default:
                let good = Self.blockIntact(b, shift: shift, bodyStart: bodyStart, end: end, sums: sums, bytes: start)
                nearby_store_release(states + b, good ? 1 : 2)
                if !good {
                    ok = false
                    if firstFailure == nil {
                        firstFailure = "checksum of block \(b) (\(sectionAt(max(bodyStart, b << shift))))"
                    }
                }
            }
        }
        return ok
    }

    private func fail(_ why: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if firstFailure == nil { firstFailure = why }
        return false
    }

    /// The first damage found, if any.
    public var failure: String? {
        guard nearby_load_relaxed(failed) != 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }

    /// Verifies every block now (`nearby check`); the description of each damaged one.
    public func verifyAll() -> [String] {
        var damaged: [String] = []
        for b in 0..<blocks where !verify(b, through: b) {
            damaged.append("checksum of block \(b) (\(sectionAt(max(bodyStart, b << shift))))")
        }
        return damaged
    }

    /// Whether block `b` (file bytes `b·size ..< (b + 1)·size` within `bodyStart ..< end`) matches its
    /// stored checksum: `SnapshotHash` seeded with the block's first offset.
    static func blockIntact(
        _ b: Int, shift: Int, bodyStart: Int, end: Int, sums: UnsafeRawPointer,
        bytes: UnsafeRawPointer
    ) -> Bool {
        let lo = max(bodyStart, b << shift)
        let hi = min(end, (b + 1) << shift)
        return blockSum(UnsafeRawBufferPointer(start: bytes + lo, count: max(0, hi - lo)), at: lo)
            == UInt64(littleEndian: sums.loadUnaligned(fromByteOffset: 8 * b, as: UInt64.self))
    }

    /// The checksum of a block's bytes that start at file offset `offset`.
    static func blockSum(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var h = SnapshotHash(seed: UInt64(offset))
        h.add(bytes)
        return h.value
    }
}
