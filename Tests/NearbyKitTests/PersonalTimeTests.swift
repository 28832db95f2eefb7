import Foundation
import Testing

@testable import NearbyKit

/// The personal fields' times (`PersonalLayer.isoTime`), written without Foundation's formatter for
/// years 1970–9999: the same text as that formatter, and read back to the same millisecond.
@Suite struct PersonalTimeTests {
    @Test func theSameTextAsFoundationAndReadBack() {
        var g = SystemRandomNumberGenerator()
        let edges: [Int64] = [
            0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000,  // 2000-02-29
            4_107_542_400_000,  // 2100-03-01
            1_764_300_000_123, 253_402_300_799_999,  // 9999-12-31T23:59:59.999
        ]
        let random = (0..<2000).map { _ in Int64.random(in: 0..<253_402_300_800_000, using: &g) }
        for ms in edges + random {
            let text = PersonalLayer.isoTime(ms)
            #expect(text == PersonalJSON.foundationTime(ms), "\(ms)")
            #expect(PersonalLayer.parseTime(text) == ms, "\(ms)")
        }
        // Beyond the years written here, Foundation's formatter writes them.
        #expect(PersonalLayer.isoTime(-1) == PersonalJSON.foundationTime(-1))
        #expect(PersonalLayer.isoTime(253_402_300_800_000) == PersonalJSON.foundationTime(253_402_300_800_000))
    }
}
