/// A read-only column of integers in as few bytes per row as its values need (frame of reference):
/// row i is a little-endian code of `width` bytes, 0 for the value 0 (a filter column's "none") and
/// v − base + 1 for any other value v, where `base` is the least value other than 0. The width is the
/// fewest bytes that hold the largest code, so TourAPI content types take 1 byte, festival days of a
/// few centuries 3 and `yyyyMMddHHmmss` times of a few decades 5, against 4, 4 and 8 as plain integers;
/// any values are held exactly, at up to 8 bytes.
///
/// A row is read with one unaligned 8-byte load, a mask and an add, so the codes are followed by
/// 7 bytes of zero padding that no row owns. Like `Column`, memory this column owns or a range of a
/// mapped index snapshot; `IndexSnapshot` stores it as its `base` (Int64), then the codes and padding.
public struct PackedColumn<Value: FixedWidthInteger & SignedInteger>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline let codes: UnsafeRawPointer
    @usableFromInline let width: Int
    @usableFromInline let mask: UInt64
    /// base − 1, so that a code c ≠ 0 is the value c + offset.
    @usableFromInline let offset: Int64
    public let count: Int
    /// Keeps the memory `codes` points into alive.
    @usableFromInline let owner: AnyObject
    /// Verifies the blocks of a mapped column before they are read (`BlockVerifier`; nil in memory).
    @usableFromInline let verifier: BlockVerifier?

    /// Bytes after the last code that a read may touch.
    static var padding: Int { 7 }

    /// The values' frame: gathered one value at a time (a snapshot's writer sees its rows once, before
    /// it lays out its sections), it fixes `base` and `width`.
    public struct Frame: Equatable, Sendable {
        public private(set) var base: Int64 = 0
        private var top: Int64 = 0
        private var empty = true

        public init() {}

        public init(_ values: some Sequence<Value>) {
            for v in values { add(v) }
        }

        public mutating func add(_ value: Value) {
            let v = Int64(value)
            guard v != 0 else { return }
            if empty {
                base = v
                top = v
                empty = false
            } else {
                base = Swift.min(base, v)
                top = Swift.max(top, v)
            }
        }

        /// Bytes per code: the fewest that hold the largest, top − base + 1 (1 when every value is 0).
        /// Values must not span all of Int64 (no column's do: categories and days are Int32, times < 10¹⁴).
        public var width: Int {
            precondition(empty || top &- base != -1, "values span all of Int64")
            let largest = UInt64(bitPattern: top &- base) &+ (empty ? 0 : 1)
            return Swift.max(1, (64 - largest.leadingZeroBitCount + 7) / 8)
        }

        /// The code of `value`, which must lie in the frame.
        @inlinable func code(_ value: Value) -> UInt64 {
            let v = Int64(value)
            return v == 0 ? 0 : UInt64(bitPattern: v &- base) &+ 1
        }

        /// The codes of `values`, `width` bytes each, little-endian, then the padding.
        func encode(_ values: some Collection<Value>) -> [UInt8] {
            let w = width
            var bytes = [UInt8](repeating: 0, count: values.count * w + PackedColumn.padding)
            var at = 0
            for v in values {
                let c = code(v)
                for k in 0..<w { bytes[at + k] = UInt8(truncatingIfNeeded: c >> (8 * k)) }
                at += w
            }
            return bytes
        }
    }

    /// A column holding `values`.
    public init(_ values: [Value]) {
        let frame = Frame(values)
        let storage = OwnedStorage(copying: frame.encode(values))
        self.init(
            codes: UnsafeRawPointer(storage.pointer), count: values.count, width: frame.width, base: frame.base,
            owner: storage)
    }

    /// A column over `count` codes of `width` bytes (1…8) at `codes`, followed by `padding` readable
    /// bytes, in memory that `owner` keeps alive. Only `init(_:)` and `IndexSnapshot` call this, after
    /// checking that the range lies inside the owner's memory.
    init(codes: UnsafeRawPointer, count: Int, width: Int, base: Int64, owner: AnyObject, verifier: BlockVerifier? = nil)
    {
        precondition(count >= 0 && (1...8).contains(width))
        self.codes = codes
        self.count = count
        self.width = width
        mask = width == 8 ? .max : (1 << (8 * UInt64(width))) - 1
        offset = base &- 1
        self.owner = owner
        self.verifier = verifier
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable @inline(__always)
    public subscript(i: Int) -> Value {
        precondition(i >= 0 && i < count, "row out of range")
        if let verifier, !verifier.holds(codes + i &* width, 8) { return 0 }
        let c = UInt64(littleEndian: codes.loadUnaligned(fromByteOffset: i &* width, as: UInt64.self)) & mask
        return c == 0 ? 0 : Value(truncatingIfNeeded: Int64(bitPattern: c) &+ offset)
    }

    /// Bytes of the codes (what the column costs in memory or in the snapshot, besides its 15 fixed bytes).
    public var byteCount: Int { count * width }
}
