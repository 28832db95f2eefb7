import ArgumentParser
import Foundation
import NearbyKit
import NearbySync

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch places from TourAPI or Kakao Local into the cache, and keep them fresh.",
        discussion: """
            Each page is applied with the sync's checkpoint in one transaction: a sync that is killed, \
            runs out of its request budget or stops on an error continues where it stopped when run \
            again, and ends with the cache a clean run gives. stdout gets one summary line: \
            {"complete":..,"added":..,"updated":..,"deleted":..,"unchanged":..,"details":..,\
            "codeLists":..,"rejected":..,"requests":..,"retries":..}. Exit 0 when complete, 1 when stopped early \
            (stderr says why). docs/sync.md.
            """,
        subcommands: [TourAPISyncCommand.self, KakaoSyncCommand.self])
}

/// Flags both syncs share: the cache, the budget, timeouts and retries.
struct SyncHTTPFlags: ParsableArguments {
    @Option(help: "The most requests sent a day (counted in the cache, across runs).")
    var maxRequests = 1000

    @Option(help: "Retries of one request after a transient failure (5xx, 429, timeouts, cut answers).")
    var retries = 5

    @Option(help: ArgumentHelp("The first retry's delay; each next doubles, with jitter.", valueName: "seconds"))
    var retryDelay = 3.0

    @Option(help: ArgumentHelp("Seconds to open a connection.", valueName: "seconds"))
    var connectTimeout = 10.0

    @Option(help: ArgumentHelp("Seconds without a byte of an answer before it is retried.", valueName: "seconds"))
    var readTimeout = 60.0

    func validate() throws {
        guard maxRequests >= 1 else { throw ValidationError("--max-requests must be at least 1") }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard retryDelay >= 0, retryDelay.isFinite else { throw ValidationError("--retry-delay must be 0 or more") }
        guard connectTimeout > 0, readTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    var options: SyncHTTPOptions {
        var o = SyncHTTPOptions()
        o.retries = retries
        o.retryDelay = retryDelay
        o.connectTimeout = connectTimeout
        o.readTimeout = readTimeout
        return o
    }
}

/// A secret from a flag, a file or the environment, in that order.
func readSecret(flag: String?, file: String?, environment name: String, flagName: String) throws -> String {
    if let flag, !flag.isEmpty { return flag }
    if let file {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UsageError("\(flagName)-file: cannot read \(file)")
        }
        let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else { throw UsageError("\(flagName)-file: \(file) is empty") }
        return key
    }
    if let value = ProcessInfo.processInfo.environment[name], !value.isEmpty { return value }
    throw UsageError("no key: give \(flagName), \(flagName)-file FILE or set $\(name)")
}

/// Lists given as `12,39` or as repeated flags.
func commaList(_ values: [String]) -> [String] {
    values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
}

/// Runs a sync: the lock, progress and retries on stderr, the summary on stdout, the snapshot, the exit
/// status.
func runSync(command: String, cache options: CacheOptions, make: @escaping (PlaceCache) -> any SyncRunner) throws {
    let cache = try options.open(readOnly: false)
    let lock: SyncLock
    do { lock = try SyncLock(cachePath: cache.path) } catch let stop as SyncStop {
        StandardError.write("nearby sync \(command): \(stop.description)")
        throw ExitCode.failure
    }
    let summary = try Blocking.run {
        let sync = make(cache)
        sync.onProgress = StandardError.progress
        sync.onRetry = { url, reason, delay in
            StandardError.write(
                "nearby sync \(command): \(url): \(reason); retrying in \(String(format: "%.1f", delay)) s")
        }
        return try await sync.run()
    }
    StandardError.progress("")
    if summary.added + summary.updated + summary.deleted > 0 {
        CacheSnapshot.update(cache) { StandardError.write("nearby sync \(command): \($0)") }
    }
    withExtendedLifetime(lock) {}
    print(summary.json())
    if let stop = summary.stop {
        StandardError.write("nearby sync \(command): stopped: \(stop.what)")
        StandardError.write("nearby sync \(command): \(stop.advice)")
        if !stop.advice.contains("continues") {
            StandardError.write(
                "nearby sync \(command): what was applied is kept; running again continues where it stopped")
        }
        throw ExitCode.failure
    }
}

/// The importer a sync uses: the one import path, with region codes checked once loaded.
func syncImporter(command: String) -> Importer {
    var importer = Importer()
    // Loaded when the first page is applied (a sync that stops at once does not wait for it), then kept.
    let regions = LazyRegions()
    importer.regions = { try regions.index() }
    var shown = 0
    importer.onRejected = { error in
        if shown < 20 { StandardError.write("nearby sync \(command): \(error.description)") }
        shown += 1
    }
    importer.onWarning = { StandardError.write("nearby sync \(command): \($0)") }
    return importer
}

/// The flags of a TourAPI sync, parsed in one place for `nearby sync tourapi` and for `nearby serve --sync
/// tourapi` / `--fallback tourapi`: the service and its scope, the key's file, the budget, timeouts and
/// retries. The key as a flag (`--service-key`) is `nearby sync tourapi`'s alone: `nearby serve
/// --service-key` is the key its own TourAPI endpoints require.
struct TourAPISyncFlags: ParsableArguments {
    @OptionGroup var http: SyncHTTPFlags

    @Option(
        help: ArgumentHelp("A file holding the data.go.kr service key (else $TOURAPI_SERVICE_KEY).", valueName: "file"))
    var serviceKeyFile: String?

    @Option(help: ArgumentHelp("Everything before the service name.", valueName: "url"))
    var baseURL = "https://apis.data.go.kr/B551011"

    @Option(
        help: ArgumentHelp(
            "The list service: KorService2 (default), or a language's: EngService2, JpnService2, ChsService2, ChtService2, GerService2, FreService2, SpnService2, RusService2.",
            valueName: "name"))
    var service: String?

    @Option(
        help: ArgumentHelp(
            "The language, as --service spells it: ko, en, ja, zh-CN, zh-TW, de, fr, es, ru.", valueName: "code"))
    var lang: String?

    /// The language asked by `--service` or `--lang` (Korean when neither); `validate` refuses a conflict.
    var language: TourLanguage {
        service.flatMap(TourLanguage.init(service:)) ?? lang.flatMap(TourLanguage.init(code:)) ?? .ko
    }

    @Option(
        help: ArgumentHelp(
            "Content types (contentTypeId), e.g. 12,39, in Korean numbers (a language's service is sent its own); default all.",
            valueName: "ids"))
    var contentType: [String] = []

    @Option(help: ArgumentHelp("TourAPI area codes (areaCode), e.g. 1,6.", valueName: "codes"))
    var areacode: [String] = []

    @Option(
        help: ArgumentHelp("Legal-dong codes: 2 digits (lDongRegnCd) or 5 (and lDongSignguCd).", valueName: "codes"))
    var ldong: [String] = []

    @Option(
        help: ArgumentHelp(
            "Details to fetch for new and changed places: common, barrier-free, pet.", valueName: "kinds"))
    var details: [String] = []

    @Option(help: ArgumentHelp("Rows a page (numOfRows, at most 1000).", valueName: "n"))
    var pageSize = 1000

    func validate() throws {
        guard (1...1000).contains(pageSize) else { throw ValidationError("--page-size must be 1…1000") }
        guard areacode.isEmpty || ldong.isEmpty else { throw ValidationError("give --areacode or --ldong, not both") }
        let services = TourLanguage.allCases.map(\.service).joined(separator: ", ")
        if let service, TourLanguage(service: service) == nil {
            throw ValidationError("--service \(service): not a list service (use \(services))")
        }
        if let lang {
            guard let asked = TourLanguage(code: lang) else {
                let codes = TourLanguage.allCases.map(\.code).joined(separator: ", ")
                throw ValidationError("--lang \(lang): not a language of TourAPI's (use \(codes))")
            }
            if let service, let named = TourLanguage(service: service), named != asked {
                throw ValidationError(
                    "--service \(service) publishes \(named.code), not \(asked.code): give one of them, or both agreeing"
                )
            }
        }
        if language != .ko {
            for kind in commaList(details) where kind != TourDetail.common.rawValue {
                throw ValidationError(
                    "--details \(kind): KorWithService2 and KorPetTourService2 describe Korean places only; \(language.service) takes common"
                )
            }
            for code in commaList(contentType) where code == "25" {
                throw ValidationError("--content-type 25: travel courses are published in Korean only")
            }
        }
        for kind in commaList(details) where TourDetail(rawValue: kind) == nil {
            if kind == "intro" || kind == "images" {
                throw ValidationError(
                    "--details \(kind): detailIntro2 and detailImage2 are not kept by the cache (it has no fields for them); use common, barrier-free, pet"
                )
            }
            throw ValidationError("--details: unknown kind '\(kind)' (use common, barrier-free, pet)")
        }
        for code in commaList(contentType) + commaList(areacode) where !code.allSatisfy(\.isNumber) {
            throw ValidationError("'\(code)' is not a code (digits)")
        }
        for code in commaList(ldong) where !(code.count == 2 || code.count == 5) || !code.allSatisfy(\.isNumber) {
            throw ValidationError("--ldong '\(code)': 2 digits (lDongRegnCd) or 5 (with lDongSignguCd)")
        }
        guard URL(string: baseURL)?.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--base-url must be an http(s) URL")
        }
    }

    /// The sync's options, the key from `serviceKey` (a flag), else `--service-key-file`, else the
    /// environment; a usage error when there is none.
    func options(serviceKey: String?) throws -> TourAPISyncOptions {
        var options = TourAPISyncOptions()
        options.serviceKey = try readSecret(
            flag: serviceKey, file: serviceKeyFile, environment: "TOURAPI_SERVICE_KEY", flagName: "--service-key")
        options.baseURL = baseURL
        options.service = language.service
        options.contentTypes = commaList(contentType)
        options.areaCodes = commaList(areacode)
        options.ldongs = commaList(ldong)
        var kinds: [TourDetail] = []
        for kind in commaList(details).compactMap(TourDetail.init(rawValue:)) where !kinds.contains(kind) {
            kinds.append(kind)
        }
        options.details = kinds
        options.pageSize = pageSize
        options.maxRequests = http.maxRequests
        options.http = http.options
        return options
    }
}

struct TourAPISyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tourapi",
        abstract: "Fetch TourAPI's places (KorService2 or a language's): a full crawl first, then what changed.",
        discussion: """
            The first run pages through areaBasedList2; later runs ask areaBasedSyncList2 what changed \
            since the last complete sync (a day of overlap), remove withdrawn places (showflag 0), follow \
            renamed ones (oldContentid), and fetch --details only for new or changed places. The key is \
            never printed: URLs show it as REDACTED. nearby serve --sync tourapi runs the same sync in \
            the background, with the same flags. --service EngService2 (or --lang en, and the other \
            languages) keeps that language's places beside the Korean ones, queried with --lang en, \
            and fetches the service's code lists (areaCode2, categoryCode2, ldongCode2, lclsSystmCode2: \
            about 55 requests, again after 30 days), which nearby serve answers under that service.

            Examples:
              export TOURAPI_SERVICE_KEY=...
              nearby sync tourapi --db places.sqlite --content-type 12,39
              nearby sync tourapi --areacode 1 --details barrier-free,pet
              nearby sync tourapi --lang en --content-type 12,39
            """)

    @OptionGroup var cache: CacheOptions

    @Option(help: "The data.go.kr service key (else --service-key-file, else $TOURAPI_SERVICE_KEY).")
    var serviceKey: String?

    @OptionGroup var tourapi: TourAPISyncFlags

    func run() throws {
        let settings = try tourapi.options(serviceKey: serviceKey)
        let importer = syncImporter(command: "tourapi")
        try runSync(command: "tourapi", cache: cache) {
            TourAPISync(cache: $0, options: settings, importer: importer)
        }
    }
}

struct KakaoSyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kakao",
        abstract: "Fetch Kakao Local's places of some categories in an area.",
        discussion: """
            Kakao's category search returns at most 45 places a query, so the area is split into \
            quadrants until each cell's count fits. Places are imported as kakao:<id>.

            Examples:
              export KAKAO_REST_API_KEY=...
              nearby sync kakao --category FD6,CE7 --region "서울 종로구"
              nearby sync kakao --category AT4 --bbox 126.96,37.56,126.99,37.59
            """)

    @OptionGroup var cache: CacheOptions
    @OptionGroup var http: SyncHTTPFlags

    @Option(help: "Kakao's REST API key (else --rest-api-key-file, else $KAKAO_REST_API_KEY).")
    var restAPIKey: String?

    @Option(help: ArgumentHelp("A file holding the REST API key.", valueName: "file"))
    var restAPIKeyFile: String?

    @Option(help: ArgumentHelp("Everything before /v2/local.", valueName: "url"))
    var baseURL = "https://dapi.kakao.com"

    @Option(help: ArgumentHelp("Category group codes, e.g. FD6,CE7.", valueName: "codes"))
    var category: [String] = []

    @Option(help: ArgumentHelp("The area: minLon,minLat,maxLon,maxLat.", valueName: "box"))
    var bbox: String?

    @Option(help: ArgumentHelp("The area: a region's name or code (its bounding box).", valueName: "name"))
    var region: String?

    func validate() throws {
        guard !commaList(category).isEmpty else { throw ValidationError("give --category, e.g. FD6,CE7") }
        for c in commaList(category) where c.count != 3 || !c.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            throw ValidationError("--category '\(c)': a Kakao category group code such as FD6")
        }
        guard (bbox == nil) != (region == nil) else { throw ValidationError("give --bbox or --region (one)") }
    }

    func run() throws {
        var options = KakaoSyncOptions()
        options.restAPIKey = try readSecret(
            flag: restAPIKey, file: restAPIKeyFile, environment: "KAKAO_REST_API_KEY", flagName: "--rest-api-key")
        options.baseURL = baseURL
        options.categories = commaList(category).map { $0.uppercased() }
        if let bbox {
            let v = bbox.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4, v[0] < v[2], v[1] < v[3] else {
                throw UsageError("--bbox: minLon,minLat,maxLon,maxLat with min < max")
            }
            options.box = GeoBox(minLon: v[0], minLat: v[1], maxLon: v[2], maxLat: v[3])
        } else if let region {
            do { options.box = try RegionAreas.shared.area(region).box } catch { throw UsageError(error) }
        }
        options.maxRequests = http.maxRequests
        options.http = http.options
        let importer = syncImporter(command: "kakao")
        let settings = options
        try runSync(command: "kakao", cache: cache) { KakaoSync(cache: $0, options: settings, importer: importer) }
    }
}

/// The region index, loaded once on first use.
private final class LazyRegions {
    private var loaded: Result<RegionIndex, any Error>?
    func index() throws -> RegionIndex {
        if loaded == nil { loaded = Result { try RegionData.index() } }
        return try loaded!.get()
    }
}
