/// The few protocol buffer encodings a vector tile needs, written by hand (proto2 wire format): varints,
/// zigzag, fixed 64-bit doubles, length-delimited fields and packed repeated varints.
struct ProtobufWriter {
    var bytes: [UInt8] = []

    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func tag(_ field: UInt64, _ type: WireType) { varint(field << 3 | type.rawValue) }

    mutating func varintField(_ field: UInt64, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    mutating func doubleField(_ field: UInt64, _ value: Double) {
        tag(field, .fixed64)
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func bytesField(_ field: UInt64, _ value: [UInt8]) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func stringField(_ field: UInt64, _ value: String) { bytesField(field, Array(value.utf8)) }

    /// A packed repeated uint32 field (skipped when empty, as proto2 writes it).
    mutating func packedField(_ field: UInt64, _ values: [UInt32]) {
        guard !values.isEmpty else { return }
        var inner = ProtobufWriter()
        for v in values { inner.varint(UInt64(v)) }
        bytesField(field, inner.bytes)
    }

    @inline(__always) static func zigzag(_ n: Int64) -> UInt64 { UInt64(bitPattern: (n << 1) ^ (n >> 63)) }
    @inline(__always) static func zigzag32(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }
}
