/// A read-only column of fixed-size values at a stable address: either memory this column owns
/// (filled from an array) or a range of a memory-mapped index snapshot, used in place.
///
/// Engines read columns by row in their hot loops, so a column is one pointer and a count: no
/// enum to switch on, no reference counting per access. The pointer stays valid because the
/// column keeps its `owner` (the storage, or the `MappedFile`) alive. Every column is made by
/// `init(_:)` or `MappedFile.column`, which check that the range lies inside the owner's memory
/// and is aligned; reads past `count` are caught by the subscript's precondition in debug builds.
public struct Column<Element: BitwiseCopyable>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<Element>
    public let count: Int
    /// Keeps the memory `base` points into alive.
    @usableFromInline let owner: AnyObject

    /// A column holding a copy of `values`.
    public init(_ values: [Element]) {
        let storage = OwnedStorage(copying: values)
        base = UnsafePointer(storage.pointer.assumingMemoryBound(to: Element.self))
        count = values.count
        owner = storage
    }

    /// A column over memory that `owner` keeps alive. Only `MappedFile` calls this, after its checks.
    init(unsafeBase: UnsafeRawPointer, count: Int, owner: AnyObject) {
        precondition(count >= 0 && Int(bitPattern: unsafeBase) % MemoryLayout<Element>.alignment == 0)
        base = unsafeBase.assumingMemoryBound(to: Element.self)
        self.count = count
        self.owner = owner
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable @inline(__always)
    public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "row out of range")
        return base[i]
    }

    /// Bytes of the values (what the column costs in memory or in the snapshot).
    public var byteCount: Int { count * MemoryLayout<Element>.stride }

    /// The values as a buffer, for loops that must not pay even the debug-build bounds check.
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
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
        self.offsets = offsets; self.bytes = bytes
    }

    /// Builds the column of `values`.
    init(_ values: some Sequence<String>) {
        var offsets: [UInt32] = [0], bytes: [UInt8] = []
        for v in values {
            bytes.append(contentsOf: v.utf8)
            offsets.append(UInt32(bytes.count))
        }
        self.init(offsets: Column(offsets), bytes: Column(bytes))
    }

    var count: Int { offsets.count - 1 }

    /// Value i; empty when a damaged snapshot has offsets out of order or out of range.
    subscript(i: Int) -> String {
        let start = Int(offsets[i]), end = Int(offsets[i + 1])
        guard start <= end, end <= bytes.count else { return "" }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }
}
