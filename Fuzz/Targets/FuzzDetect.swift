// Format detection: any bytes give a format or an UnsupportedInputError, never a crash or a hang.
import NearbyStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? PlaceParser.detect(UnsafeRawBufferPointer(start: data, count: size), file: "fuzz")
    return 0
}
