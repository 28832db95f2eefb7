import Foundation
import NearbyCore
import NearbyTestSupport

@testable import NearbyStore

/// The message of the one error a refused input throws.
func refusal(_ text: String, name: String, format: ImportFormat? = nil) -> String? {
    do {
        _ = try parseFile(text, name: name, format: format)
        return nil
    } catch let e as UnsupportedInputError {
        return e.description
    } catch { return "unexpected \(error)" }
}
