// The JSON scanner and value parser, and the place-line decoder built on them.
import NearbyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let value = try? JSONValue.parse(bytes) {
        // What parses must be representable: a re-parse of our own output of a string gives it back.
        if case .string(let s) = value {
            var out: [UInt8] = []
            JSONWriter.appendString(s, to: &out)
            let again = out.withUnsafeBytes { try? JSONValue.parse($0) }
            precondition(again == value, "string round trip")
        }
    }
    var scanner = JSONScanner(bytes)
    _ = try? scanner.readValue()
    _ = try? PlaceJSON.decode(bytes)
    return 0
}
