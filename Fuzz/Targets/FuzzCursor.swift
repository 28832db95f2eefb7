// The cursor decoder: any text is a cursor or nil; a decoded cursor is in range and re-encodes to itself.
import NearbyCore

let key = PageCursor.Key(k0: 0x0706_0504_0302_0100, k1: 0x0F0E_0D0C_0B0A_0908)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let c = PageCursor(decoding: text, key: key) {
        precondition(c.page >= 1 && c.page <= PageCursor.maxPage, "page range")
        precondition(c.distance.isFinite && c.distance >= 0, "distance range")
        precondition(c.encoded(key: key) == text, "a cursor is exactly one text")
    }
    return 0
}
