/// A read-only column of fixed-size values at a stable address: either memory this column owns
/// (filled from an array) or a range of a memory-mapped index snapshot, used in place.
///
/// Engines read columns by row in their hot loops, so a column is one pointer and a count: no
/// enum to switch on, no reference counting per access. The pointer stays valid because the
/// column keeps its `owner` (the storage, or the `MappedFile`) alive. Every column is made by
/// `init(_:)` or `MappedFile.column`, which check that the range lies inside the owner's memory
/// and is aligned; reads past `count` are caught by the subscript's precondition in debug builds.
/// A mapped column's reads go through its snapshot's `BlockVerifier` first (`holds`: one load and a
/// branch once the row's block is known good): a value of a block that fails its checksum reads as
/// zero (and the engine then refuses to answer). A column in memory tests only that it has no verifier.
public struct Column<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<Element>
    public let count: Int
    /// Keeps the memory `base` points into alive.
    @usableFromInline let owner: AnyObject
    /// Verifies the blocks of a mapped column before they are read (nil: memory this column owns).
    @usableFromInline let verifier: BlockVerifier?

    /// A column holding a copy of `values`.
    public init(_ values: [Element]) {
        let storage = OwnedStorage(copying: values)
        base = UnsafePointer(storage.pointer.assumingMemoryBound(to: Element.self))
        count = values.count
        owner = storage
        verifier = nil
    }

    /// A column over memory that `owner` keeps alive. Only `MappedFile` calls this, after its checks.
    init(unsafeBase: UnsafeRawPointer, count: Int, owner: AnyObject, verifier: BlockVerifier? = nil) {
        precondition(count >= 0 && Int(bitPattern: unsafeBase) % MemoryLayout<Element>.alignment == 0)
        base = unsafeBase.assumingMemoryBound(to: Element.self)
        self.count = count
        self.owner = owner
        self.verifier = verifier
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable @inline(__always)
    public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "row out of range")
        if let verifier, !verifier.holds(base + i, MemoryLayout<Element>.stride) { return verifier.zero(Element.self) }
        return base[i]
    }

    /// Bytes of the values (what the column costs in memory or in the snapshot).
    public var byteCount: Int { count * MemoryLayout<Element>.stride }

    /// The values as a buffer, for loops that must not pay even the debug-build bounds check. A mapped
    /// column's blocks are all verified first (zeros instead when one is damaged).
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer(in: 0..<count, body)
    }

    /// Values `range` as a buffer, their blocks verified first (zeros instead when one is damaged).
    @inlinable
    public func withUnsafeBufferPointer<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<Element>) throws -> R)
        rethrows -> R
    {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "rows out of range")
        if let verifier, !range.isEmpty,
            !verifier.covers(base + range.lowerBound, range.count * MemoryLayout<Element>.stride)
        {
            let zeros = UnsafeMutableRawBufferPointer.allocate(
                byteCount: range.count * MemoryLayout<Element>.stride, alignment: 16)
            defer { zeros.deallocate() }
            zeros.initializeMemory(as: UInt8.self, repeating: 0)
            return try body(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(zeros.baseAddress!).assumingMemoryBound(to: Element.self),
                    count: range.count))
        }
        return try withExtendedLifetime(owner) {
            try body(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
        }
    }

    /// The values as a buffer without verification: for reads whose blocks a caller verified already
    /// (`PlaceTable.answerRows`).
    @inlinable
    func withUnverifiedBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try withExtendedLifetime(owner) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }
}

/// Heap memory owned by `Column`s made from arrays: at least one byte, so the base is never nil.
final class OwnedStorage {
    let pointer: UnsafeMutableRawPointer

    init<T: BitwiseCopyable>(copying values: [T]) {
        let bytes = max(1, values.count * MemoryLayout<T>.stride)
        pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: max(8, MemoryLayout<T>.alignment))
        values.withUnsafeBytes { if let src = $0.baseAddress { pointer.copyMemory(from: src, byteCount: $0.count) } }
    }

    deinit { pointer.deallocate() }
}

/// A column of UTF-8 strings: value i is `bytes[offsets[i] ..< offsets[i + 1]]`.
struct StringColumn: Sendable {
    let offsets: Column<UInt32>
    let bytes: Column<UInt8>

    init(offsets: Column<UInt32>, bytes: Column<UInt8>) {
        precondition(offsets.count >= 1, "a string column has count + 1 offsets")
        self.offsets = offsets
        self.bytes = bytes
    }

    /// Builds the column of `values`.
    init(_ values: some Sequence<String>) {
        var offsets: [UInt32] = [0]
        var bytes: [UInt8] = []
        for v in values {
            bytes.append(contentsOf: v.utf8)
            offsets.append(UInt32(bytes.count))
        }
        self.init(offsets: Column(offsets), bytes: Column(bytes))
    }

    var count: Int { offsets.count - 1 }

    /// Value i; empty when a damaged snapshot has offsets out of order or out of range.
    subscript(i: Int) -> String {
        let start = Int(offsets[i])
        let end = Int(offsets[i + 1])
        guard start <= end, end <= bytes.count else { return "" }
        return bytes.withUnsafeBufferPointer(in: start..<end) { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads value i's offsets and bytes through their verifier, so that later unverified reads of
    /// it (`PlaceRows.forEachID`) read verified blocks.
    func verify(_ i: Int) {
        let start = Int(offsets[i])
        let end = Int(offsets[i + 1])
        if start < end, end <= bytes.count, let verifier = bytes.verifier {
            _ = verifier.covers(bytes.base + start, end - start)
        }
    }
}
