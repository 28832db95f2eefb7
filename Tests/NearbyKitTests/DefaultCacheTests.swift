import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// The default cache's path and its build on first use.
@Suite struct DefaultCacheTests {
    @Test func defaultPathFollowsEnvironment() {
        #expect(CachePath.defaultPath(environment: ["NEARBY_DB": "/x/db.sqlite", "HOME": "/h"]) == "/x/db.sqlite")
        #expect(
            CachePath.defaultPath(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]) == "/c/nearby/places.sqlite")
        #expect(
            CachePath.defaultPath(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"])
                == "/h/.cache/nearby/places.sqlite")
        #expect(CachePath.defaultPath(environment: ["HOME": "/h"]) == "/h/.cache/nearby/places.sqlite")
    }

    @Test func concurrentFirstUsesBuildTheDefaultCacheOnce() throws {
        let dir = try TempFolder()
        let path = dir.file("places.sqlite")
        let places = SamplePlaces.random(50, seed: 6)
        let builds = NSLock()
        nonisolated(unsafe) var buildCount = 0
        nonisolated(unsafe) var counts: [Int] = []
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let cache = try? DefaultCache.openOrBuild(
                path: path, readOnly: true,
                build: {
                    builds.withLock { buildCount += 1 }
                    Thread.sleep(forTimeInterval: 0.05)  // widen the window in which the others arrive
                    return places
                })
            let n = (try? cache?.count()).flatMap { $0 } ?? -1
            builds.withLock { counts.append(n) }
        }
        #expect(buildCount == 1)
        #expect(counts == [50, 50, 50, 50])
    }

    @Test func defaultCacheIsBuiltOnceThenReused() throws {
        let dir = try TempFolder()
        let path = dir.file("sub/dir/places.sqlite")
        var builds = 0
        var announcements = 0
        let places = SamplePlaces.random(20, seed: 5)
        for _ in 0..<2 {
            let cache = try DefaultCache.openOrBuild(
                path: path, readOnly: true,
                build: {
                    builds += 1
                    return places
                }, willBuild: { announcements += 1 })
            #expect(try Set(cache.allPlaces()) == Set(places))
        }
        #expect(builds == 1 && announcements == 1)
        // No partial build is left beside it (a read-only reader may leave SQLite's -wal and -shm files).
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.file("sub/dir"))
        #expect(names.filter { $0.contains("building") }.isEmpty && names.contains("places.sqlite"))
    }

    @Test func failedDefaultBuildLeavesNoCache() throws {
        struct Broken: Error {}
        let dir = try TempFolder()
        let path = dir.file("places.sqlite")
        #expect(throws: Broken.self) {
            try DefaultCache.openOrBuild(path: path, readOnly: false, build: { throw Broken() })
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
