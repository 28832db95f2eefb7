import Foundation
import NearbyKit
import NearbyReplay
import NearbySync
import NearbyTestSupport

/// The replay server and syncs against it, as the sync tests use them.
enum SyncSupport {
    /// The real-data fixtures the import tests read (Tests/NearbyStoreTests/Fixtures/RealData).
    static let realData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NearbyStoreTests/Fixtures/RealData").path

    /// `generated` places of TourAPI's shape, and the fixtures' real samples with their barrier-free
    /// and pet details.
    static func catalog(generated: Int = 40) throws -> ReplayCatalog {
        var catalog = ReplayCatalog.generated(count: generated)
        try catalog.addPlaces(fromFile: realData + "/bare-array.json")
        try catalog.addBarrierFree(fromFile: realData + "/detailWithTour2.json")
        try catalog.addPet(fromFile: realData + "/detailPetTour2.jsonl")
        return catalog
    }

    /// A started server; it stops when the returned object goes away.
    static func server(_ catalog: ReplayCatalog, key: String? = "test-key") throws -> ReplayServer {
        let server = ReplayServer(catalog: catalog, serviceKey: key, kakaoKey: key)
        try server.start()
        return server
    }

    /// A Kakao sync of `categories` over `box` against the replay server, with `key`.
    static func kakaoOptions(
        _ server: ReplayServer, categories: [String], box: GeoBox, key: String = "kakao-key"
    ) -> KakaoSyncOptions {
        var options = KakaoSyncOptions()
        options.baseURL = server.kakaoBaseURL
        options.restAPIKey = key
        options.categories = categories
        options.box = box
        return options
    }

    static func options(_ server: ReplayServer, pageSize: Int = 10, key: String = "test-key") -> TourAPISyncOptions {
        var options = TourAPISyncOptions()
        options.baseURL = server.tourBaseURL
        options.serviceKey = key
        options.pageSize = pageSize
        options.maxRequests = 100_000
        options.http.retryDelay = 0.001
        options.http.retries = 3
        options.http.readTimeout = 2
        options.http.connectTimeout = 2
        return options
    }

    static func sync(_ path: String, _ options: TourAPISyncOptions) async throws -> SyncSummary {
        let cache = try PlaceCache(path: path)
        return try await TourAPISync(cache: cache, options: options, importer: Importer()).run()
    }

    /// Every cached place, by id.
    static func places(_ path: String) throws -> [Place] {
        try PlaceCache(path: path, readOnly: true).allPlaces().sorted { $0.id < $1.id }
    }

    /// The places a fresh full sync of `server` gives, in a new cache.
    static func fresh(_ server: ReplayServer, _ options: TourAPISyncOptions) async throws -> [Place] {
        let folder = try TempFolder()
        let path = folder.file("fresh.sqlite")
        let summary = try await sync(path, options)
        precondition(summary.stop == nil, "the fresh sync stopped: \(summary.stop!)")
        return try places(path)
    }

    /// Content ids of the places the catalog shows.
    static func shown(_ catalog: ReplayCatalog) -> Set<String> {
        Set(catalog.places.values.filter { !$0.hidden }.map(\.id))
    }
}
