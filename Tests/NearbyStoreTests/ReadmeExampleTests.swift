import Foundation
import NearbyCore
import NearbyStore
import Testing

/// The library example of README.md, run as written: if this stops compiling or passing, fix the README too.
@Test func readmeLibraryExampleAnswersFromARealCache() throws {
    let folder = try TempFolder()
    let places = [
        Place(id: "1", title: "서울시청", lat: 37.5663, lon: 126.9779, category: 14),
        Place(id: "2", title: "덕수궁", lat: 37.5658, lon: 126.9751, category: 12),
        Place(id: "3", title: "부산역", lat: 35.1151, lon: 129.0422, category: 12),
    ]
    try PlaceCache(path: folder.file("places.sqlite")).write { w in for p in places { try w.upsert(p) } }

    // README.md, "As a library":
    let cache = try PlaceCache(path: folder.file("places.sqlite"))
    let engine = MemoryEngine(places: try cache.allPlaces(), generation: try cache.generation())
    let answer = try engine.run(PlaceQuery(
        center: Coordinate(lat: 37.5665, lon: 126.9780), shape: .radius(2000), limit: 30))

    #expect(answer.total == 2)
    #expect(answer.places.map(\.id) == ["1", "2"])
    let expected = Haversine.distance(lat1: 37.5665, lon1: 126.9780, lat2: 37.5663, lon2: 126.9779)
    #expect(answer.distances.first! == expected)
}
