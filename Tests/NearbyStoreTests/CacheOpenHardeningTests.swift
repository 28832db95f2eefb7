import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Hardening: opening caches under races and odd paths.
@Suite struct CacheOpenHardeningTests {
    /// Two writers creating the same new cache: the loser waits or says "busy", never "a SQLite file
    /// of another application" (which reading the header between the winner's writes would say).
    @Test func racingCreatorsSeeBusyOrSuccess() throws {
        let dir = try TempFolder()
        let place = Place(id: "1", title: "A", lat: 37.5, lon: 127, category: 12)
        for trial in 0..<150 {
            let path = dir.file("race\(trial).sqlite")
            let messages = LockedMessages()
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                do {
                    let cache = try PlaceCache(path: path)
                    try cache.write { try $0.upsert(place) }
                } catch let error as PlaceCacheError {
                    if case .busy = error { return }
                    messages.append(error.description)
                } catch {
                    messages.append("\(error)")
                }
            }
            #expect(messages.all.isEmpty, "trial \(trial)")
            if !messages.all.isEmpty { break }
            #expect(try PlaceCache(path: path, readOnly: true).count() == 1)
        }
    }

    /// `--db` naming a folder says so instead of "disk I/O error".
    @Test func folderIsNotACache() throws {
        let dir = try TempFolder()
        for readOnly in [false, true] {
            #expect(
                throws: PlaceCacheError.cannotOpen(
                    path: dir.path, reason: "it is a folder; name a file, e.g. \(dir.path)/places.sqlite")
            ) {
                try PlaceCache(path: dir.path, readOnly: readOnly)
            }
        }
    }
}

final class LockedMessages: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func append(_ m: String) {
        lock.lock()
        messages.append(m)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
