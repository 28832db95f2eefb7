import Foundation
import NearbyCore
import NearbyTestSupport

@testable import NearbyStore

/// Writes `bytes` to a real file in a fresh temporary folder, reads it back and parses it, named `name`.
func parseFile(_ bytes: [UInt8], name: String, format: ImportFormat? = nil, strict: Bool = false) throws -> ParsedInput
{
    let dir = try TempFolder()
    let read = try withExtendedLifetime(dir) {
        try Data(contentsOf: URL(fileURLWithPath: dir.write(name, Data(bytes))))
    }
    return try PlaceParser.parse(Array(read), file: name, format: format, strict: strict)
}

func parseFile(_ text: String, name: String, format: ImportFormat? = nil, strict: Bool = false) throws -> ParsedInput {
    try parseFile(Array(text.utf8), name: name, format: format, strict: strict)
}

extension ParsedInput {
    var places: [Place] { records.compactMap { if case .upsert(let p) = $0.record { p } else { nil } } }
    var lines: [Int] { records.map(\.line) }
    var messages: [String] { errors.map(\.description) }
}

/// The message of the one error a refused input throws.
func refusal(_ text: String, name: String, format: ImportFormat? = nil) -> String? {
    do {
        _ = try parseFile(text, name: name, format: format)
        return nil
    } catch let e as UnsupportedInputError {
        return e.description
    } catch { return "unexpected \(error)" }
}
