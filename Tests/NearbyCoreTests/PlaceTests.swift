import Testing
@testable import NearbyCore

@Test func accessibilityMaskRejectsUnknownTags() {
    #expect(Accessibility.mask(["wheelchair", "restroom"]) == 0b101)
    #expect(Accessibility.mask(["wheelchair", "teleporter"]) == nil)
}

@Test func categoryListsParseAsTheCommandLineWritesThem() {
    #expect(PlaceFilter.categories(parsing: "12,39") == [12, 39])
    #expect(PlaceFilter.categories(parsing: " 15 , 15 ") == [15])
    #expect(PlaceFilter.categories(parsing: "") == nil)
    #expect(PlaceFilter.categories(parsing: "12,food") == nil)
    #expect(PlaceFilter.categories(parsing: "12,,39") == [12, 39])  // empty items are skipped, as elsewhere in the CLI
}
