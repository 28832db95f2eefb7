import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// detailWithTour2 and detailPetTour2 (the fixtures in NearbyStoreTests/Fixtures/RealData) merge into
/// their places through the one import path, wait when the place is not there yet, survive a
/// re-import of the list, and are found by `--accessible <group>` and `--pet` on every engine.
@Suite struct PlaceDetailImportTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../NearbyStoreTests/Fixtures/RealData").standardized
    static func fixtures(_ names: String...) -> [String] { names.map { folder.appendingPathComponent($0).path } }

    static func ids(_ engines: [any QueryEngine], _ pairs: [(name: String, value: String)]) throws -> [String] {
        let q = try QueryParameters.parse(pairs + [("limit", "0")])
        let answers = try engines.map { try $0.run(q) }
        #expect(answers.allSatisfy { $0 == answers[0] }, "\(pairs): engines differ")
        return answers[0].places.map(\.id)
    }

    @Test func detailsBeforeTheirPlacesWaitThenMergeAndSurviveAReimport() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("d.sqlite"))
        let details = try Importer().importFiles(
            Self.fixtures("detailWithTour2.json", "detailPetTour2.jsonl"), into: cache)
        #expect(details.counts.pending == 4 && details.counts.inserted == 0, "\(details.json())")
        #expect(try cache.count() == 0)

        let places = try Importer().importFiles(Self.fixtures("bare-array.json", "batch-dump.json"), into: cache)
        #expect(places.counts.inserted == 4 && places.counts.pending == 0, "\(places.json())")
        let palace = try #require(try cache.place(id: "126508"))
        #expect(
            palace.accessibility == [
                "access-route", "audio-guide", "guide-dog", "infants", "parking",
                "physical", "restroom", "stroller-rental", "visual", "wheelchair",
            ])
        // The texts are kept as given, the one that says 없음 too (it gave no tag).
        let texts = try #require(palace.barrierFree)
        #expect(texts.contains(#""wheelchair":"휠체어 무료 대여(5대)""#) && texts.contains(#""elevator":"없음""#))
        #expect(!texts.contains("lactationroom"))  // empty fields are left out
        #expect(try cache.place(id: "2733968")?.pet == "some" && cache.place(id: "126511")?.pet == "no")
        #expect(try cache.place(id: "2733968")?.petInfo?.contains("목줄 착용") == true)

        // The list again (no details in it): the merged details stay.
        let again = try Importer().importFiles(Self.fixtures("bare-array.json"), into: cache)
        #expect(again.counts.unchanged == 2, "\(again.json())")
        #expect(try cache.place(id: "126508") == palace)

        // The detail of 9999901 still waits; it merges when its place arrives.
        let late = try dir.write(
            "late.jsonl", #"{"id":"9999901","title":"국립극장","lat":37.5525,"lon":127.0006,"category":14}"# + "\n")
        _ = try Importer().importFiles([late], into: cache)
        #expect(try cache.place(id: "9999901")?.accessibility == ["hearing", "sign-language", "video-guide"])

        CacheSnapshot.update(cache)
        let engines = try EngineKind.overCache.map { try $0.open(cache) }
        #expect(try Self.ids(engines, [("accessible", "physical")]) == ["126508"])
        #expect(try Self.ids(engines, [("accessible", "infants"), ("accessible", "visual")]) == ["126508"])
        #expect(try Self.ids(engines, [("accessible", "hearing")]) == ["9999901"])
        #expect(try Self.ids(engines, [("accessible", "elevator")]) == [])
        #expect(try Self.ids(engines, [("pet", "some")]) == ["2733968"])
        #expect(try Self.ids(engines, [("pet", "all,some"), ("pet", "no")]) == ["126511", "2733968"])
    }

    /// A place that names a facility but no group (JSON lines, generated data) is in the group too.
    @Test func aFacilityPutsThePlaceInItsGroups() throws {
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("g.sqlite"))
        _ = try Importer().importPlaces(
            [
                Place(id: "1", title: "a", lat: 37.5, lon: 127, category: 12, accessibility: ["parking"]),
                Place(id: "2", title: "b", lat: 37.5, lon: 127, category: 12, accessibility: ["baby-chair"]),
                Place(id: "3", title: "c", lat: 37.5, lon: 127, category: 12),
            ], into: cache)
        CacheSnapshot.update(cache)
        let engines = try EngineKind.overCache.map { try $0.open(cache) }
        #expect(try Self.ids(engines, [("accessible", "elderly")]) == ["1"])
        #expect(try Self.ids(engines, [("accessible", "physical,parking")]) == ["1"])
        #expect(try Self.ids(engines, [("accessible", "infants")]) == ["2"])
        for group in Accessibility.categories {
            #expect(Accessibility.members[group]?.allSatisfy { Accessibility.bit($0) != nil } == true, "\(group)")
        }
    }
}
