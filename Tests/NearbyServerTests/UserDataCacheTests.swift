import Foundation
import NearbyKit
import NearbyPostGIS
import NearbyTestSupport
import Testing

@testable import NearbyServer

/// The server keeps users' data between queries while the store's `itemsVersion` holds: on the cache
/// and on PostGIS, a write through another connection (another server, a command) is seen by the next
/// read, and nothing else makes it read again.
@Suite struct UserDataCacheTests {
    @Test(arguments: [false, true]) func aWriteOnAnotherConnectionIsSeenByTheNextRead(postgis: Bool) throws {
        let places = Fixture.places(20)
        let folder = try TempFolder()
        let open: StorageOpener
        let writer: any PersonalStorage
        if postgis {
            let url = try PostgresCluster.shared().makeDatabase()
            let store = try PostGISStore(url: url, readOnly: false)
            _ = try store.write { w in for p in places { try w.upsert(p) } }
            writer = store
            open = { _ in try PostGISStore(url: url, readOnly: true) }
        } else {
            let path = folder.file("places.sqlite")
            _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
            writer = try PlaceCache(path: path)
            open = { writable in try PlaceCache(path: path, readOnly: !writable) }
        }
        let reader = try open(false)
        let cache = UserDataCache(open: open)
        var loads = 0
        func data(_ user: String) throws -> PersonalData {
            try cache.data(user: user) { name in
                loads += 1
                return try reader.personalData(user: name)
            }
        }
        let layer = PersonalLayer(store: writer)
        try layer.rate(user: "ana", place: places[1].id, stars: 4)
        let first = try data("ana")
        #expect(first.items[places[1].id]?.rating == 4 && loads == 1)
        #expect(try data("ana") === first && loads == 1, "kept while nothing was written")
        _ = try data("bo")
        #expect(loads == 2)
        try layer.rate(user: "ana", place: places[1].id, stars: 2)
        #expect(try data("ana").items[places[1].id]?.rating == 2 && loads == 3, "the write is seen")
        try layer.addBookmarks(user: "ana", places: [places[2].id], list: nil)
        #expect(try data("ana").items[places[2].id]?.bookmarks.count == 1 && loads == 4)
        let kept = try data("ana")
        #expect(loads == 4)
        if postgis {
            // A search writes no item: the data stays (the cache's data_version moves with any commit).
            try writer.recordSearch(user: "ana", keyword: "k", at: 1, cap: 10)
            #expect(try data("ana") === kept && loads == 4)
        }
    }
}
