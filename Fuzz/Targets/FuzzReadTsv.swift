// The tsv reader (format forced), strict and lenient: bad records become RecordErrors, never a crash.
import NearbyStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzCheck.parsed(try? PlaceParser.parse(bytes, file: "fuzz", format: .tsv))
    _ = try? PlaceParser.parse(bytes, file: "fuzz", format: .tsv, strict: true)
    return 0
}
