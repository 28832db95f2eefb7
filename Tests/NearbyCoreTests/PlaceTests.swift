import Testing

@testable import NearbyCore

@Test func accessibilityMaskRejectsUnknownTags() {
    #expect(Accessibility.mask(["wheelchair", "restroom"]) == 0b101)
    #expect(Accessibility.mask(["wheelchair", "teleporter"]) == nil)
}
