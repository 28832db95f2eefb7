import ArgumentParser
import Foundation
import NearbyCore

/// The flags that describe one query: shared by the command line and by each JSON line of a
/// `--queries` file (whose keys are these flag names, e.g. `{"qid":1,"lat":37.5,"lon":127,"radius":2000}`).
///
/// Values are read as text and checked in `query()`, so every bad value, from the command line or
/// from a batch file, gets the same one-line message and exit code 2. Options whose value may start
/// with `-` (coordinates, a box, a descending sort, a negative radius, a cursor) take the next argument
/// unconditionally, so `--lat -33.86` and `--sort -created` work without `=`.
struct QueryOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Latitude of the centre, WGS84 degrees (-90…90).", valueName: "degrees"))
    var lat: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Longitude of the centre, WGS84 degrees (-180…180).", valueName: "degrees"))
    var lon: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Places within this many metres of the centre (with --knn: the maximum distance).", valueName: "metres"))
    var radius: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The k nearest places that pass the filters (ties by id).", valueName: "k"))
    var knn: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Only places in this box; minLon > maxLon crosses the antimeridian.", valueName: "minLon,minLat,maxLon,maxLat"))
    var bbox: String?

    @Option(help: ArgumentHelp("Content type ids, e.g. 12,39 (12 tourist spot, 14 culture, 15 festival, 25 course, 28 leisure, 32 lodging, 38 shopping, 39 food).", valueName: "ids"))
    var category: String?

    @Option(help: ArgumentHelp("TourAPI area codes, comma-separated.", valueName: "codes"))
    var areacode: String?

    @Option(help: ArgumentHelp("TourAPI sigungu codes, comma-separated.", valueName: "codes"))
    var sigungucode: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Text the title contains: case-insensitive, Unicode-normalised; initial consonants match syllables (ㄱㅂㄱ finds 경복궁).", valueName: "text"))
    var keyword: String?

    @Option(name: .customLong("created-since"), help: ArgumentHelp("Created on or after (yyyyMMdd, yyyy-MM-dd or yyyyMMddHHmmss).", valueName: "date"))
    var createdSince: String?
    @Option(name: .customLong("created-until"), help: ArgumentHelp("Created on or before (a day includes all of it).", valueName: "date"))
    var createdUntil: String?
    @Option(name: .customLong("modified-since"), help: ArgumentHelp("Modified on or after.", valueName: "date"))
    var modifiedSince: String?
    @Option(name: .customLong("modified-until"), help: ArgumentHelp("Modified on or before (a day includes all of it).", valueName: "date"))
    var modifiedUntil: String?

    @Option(help: ArgumentHelp("Festivals running on this day (yyyyMMdd or yyyy-MM-dd).", valueName: "date"))
    var date: String?
    @Option(help: ArgumentHelp("Festivals running on some day from this one (with --to).", valueName: "date"))
    var from: String?
    @Option(help: ArgumentHelp("Festivals running on some day up to this one (with --from).", valueName: "date"))
    var to: String?
    @Option(help: ArgumentHelp("Festivals overlapping this period: --from and --to in one.", valueName: "from,to"))
    var during: String?

    @Flag(name: .customLong("with-image"), help: "Only places with an image.")
    var withImage = false

    @Option(help: ArgumentHelp("Required accessibility tags, all of them: \(Accessibility.tags.joined(separator: ", ")).", valueName: "tags"))
    var accessible: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Sort keys: distance, title, created, modified, category; - in front for descending, e.g. --sort title,-modified. Ties: id. Default: distance with a centre, else id.",
        valueName: "keys"))
    var sort: String?

    @Option(help: ArgumentHelp("TourAPI arrange code: A title, C modified (newest first), D created (newest first), E distance; O/Q/R/S = A/C/D/E with an image only.", valueName: "code"))
    var arrange: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Rows per page (TourAPI numOfRows); 0 = every match.", valueName: "n"))
    var limit: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Page number from 1 (TourAPI pageNo).", valueName: "n"))
    var page: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Resume after the last row of a previous page (its nextCursor, see --meta).", valueName: "cursor"))
    var cursor: String?

    @Option(help: ArgumentHelp("haversine (default), geodesic, projected (EPSG:5179), projected:EPSG:nnnn or projected:utm.", valueName: "model"))
    var distance: String?

    /// The option's names as JSON keys, for a batch file: `withImage` or `with-image` both work.
    static let jsonKeys: [String: String] = [
        "createdSince": "created-since", "createdUntil": "created-until", "modifiedSince": "modified-since",
        "modifiedUntil": "modified-until", "withImage": "with-image",
    ]

    /// These options with every option unset here taken from `base` (the command line's).
    func over(_ base: QueryOptions) -> QueryOptions {
        var m = self
        m.lat = lat ?? base.lat; m.lon = lon ?? base.lon; m.radius = radius ?? base.radius; m.knn = knn ?? base.knn
        m.bbox = bbox ?? base.bbox; m.category = category ?? base.category; m.areacode = areacode ?? base.areacode
        m.sigungucode = sigungucode ?? base.sigungucode; m.keyword = keyword ?? base.keyword
        m.createdSince = createdSince ?? base.createdSince; m.createdUntil = createdUntil ?? base.createdUntil
        m.modifiedSince = modifiedSince ?? base.modifiedSince; m.modifiedUntil = modifiedUntil ?? base.modifiedUntil
        m.date = date ?? base.date; m.from = from ?? base.from; m.to = to ?? base.to; m.during = during ?? base.during
        m.withImage = withImage || base.withImage; m.accessible = accessible ?? base.accessible
        m.sort = sort ?? base.sort; m.arrange = arrange ?? base.arrange; m.limit = limit ?? base.limit
        m.page = page ?? base.page; m.cursor = cursor ?? base.cursor; m.distance = distance ?? base.distance
        return m
    }

    /// The query these options describe, or a one-line reason why they describe none.
    func query() throws(UsageError) -> PlaceQuery {
        var q = PlaceQuery()
        switch (try number(lat, "--lat"), try number(lon, "--lon")) {
        case (nil, nil): break
        case let (la?, lo?):
            guard (-90...90).contains(la) else { throw UsageError("--lat \(la) is outside -90…90") }
            guard (-180...180).contains(lo) else { throw UsageError("--lon \(lo) is outside -180…180") }
            q.center = Coordinate(lat: la, lon: lo)
        default: throw UsageError("--lat and --lon go together")
        }
        let r = try number(radius, "--radius")
        if let r, r < 0 { throw UsageError("--radius must be ≥ 0 metres, got \(radius ?? "")") }
        if let k = try integer(knn, "--knn") {
            guard k >= 1 else { throw UsageError("--knn must be at least 1") }
            q.shape = .knn(k: k, maxDistance: r)
        } else if let r {
            q.shape = .radius(r)
        }
        if q.shape != .all && q.center == nil { throw UsageError("--radius and --knn need a centre (--lat and --lon)") }

        var f = PlaceFilter()
        if let bbox {
            guard let box = GeoBox(parsing: bbox) else {
                throw UsageError("--bbox '\(bbox)' is not minLon,minLat,maxLon,maxLat with longitudes in -180…180, latitudes in -90…90 and minLat ≤ maxLat")
            }
            f.bbox = box
        }
        if let category {
            guard let ids = PlaceFilter.categories(parsing: category) else {
                throw UsageError("--category '\(category)' is not a comma-separated list of integers (e.g. 12,39)")
            }
            f.categories = ids
        }
        f.areacodes = areacode.map { Set(list($0)) }
        f.sigungucodes = sigungucode.map { Set(list($0)) }
        if let keyword, !keyword.isEmpty { f.keyword = keyword }
        f.created = try timestampRange(createdSince, createdUntil, "--created")
        f.modified = try timestampRange(modifiedSince, modifiedUntil, "--modified")
        f.eventPeriod = try eventPeriod()
        f.withImage = withImage
        if let accessible {
            f.accessibility = list(accessible)
            let unknown = f.accessibility.filter { Accessibility.bit($0) == nil }
            guard unknown.isEmpty else {
                throw UsageError("--accessible: unknown tag '\(unknown[0])' (known: \(Accessibility.tags.joined(separator: ", ")))")
            }
        }

        if let arrange {
            guard sort == nil else { throw UsageError("--arrange and --sort both give the order; use one") }
            guard let a = Arrange(rawValue: arrange.uppercased()) else {
                throw UsageError("--arrange '\(arrange)' is not one of A, C, D, E, O, Q, R, S")
            }
            q.order = a.order
            if a.requiresImage { f.withImage = true }
        }
        if let sort {
            guard let o = PlaceOrder(parsing: sort) else {
                throw UsageError("--sort '\(sort)' is not a list of distance, title, created, modified, category (each once, - for descending)")
            }
            q.order = o
        }
        if q.order.usesDistance && q.center == nil { throw UsageError("sorting by distance needs a centre (--lat and --lon)") }
        q.filter = f

        q.limit = try integer(limit, "--limit") ?? 0
        q.page = try integer(page, "--page") ?? 1
        guard q.limit >= 0 else { throw UsageError("--limit must be 0 (all) or more") }
        guard q.page >= 1 else { throw UsageError("--page must be 1 or more") }
        if cursor != nil && page != nil { throw UsageError("--cursor and --page both say where to start; use one") }
        if cursor != nil && q.limit == 0 { throw UsageError("--cursor needs --limit") }
        q.cursor = cursor
        if let distance {
            do { q.distance = try DistanceModel(parsing: distance) } catch { throw UsageError("--distance: \(error)") }
        }
        return q
    }

    private func list(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func number(_ s: String?, _ flag: String) throws(UsageError) -> Double? {
        guard let s else { return nil }
        guard let v = Double(s.trimmingCharacters(in: .whitespaces)), v.isFinite else {
            throw UsageError("\(flag) '\(s)' is not a finite number")
        }
        return v
    }

    private func integer(_ s: String?, _ flag: String) throws(UsageError) -> Int? {
        guard let s else { return nil }
        guard let v = Int(s.trimmingCharacters(in: .whitespaces)) else { throw UsageError("\(flag) '\(s)' is not an integer") }
        return v
    }

    private func timestampRange(_ since: String?, _ until: String?, _ flag: String) throws(UsageError) -> ClosedRange<Int64>? {
        guard since != nil || until != nil else { return nil }
        func stamp(_ s: String?, _ suffix: String, endOfDay: Bool) throws(UsageError) -> Int64? {
            guard let s else { return nil }
            guard let v = DateBound.timestamp(s, endOfDay: endOfDay) else {
                throw UsageError("\(flag)-\(suffix) '\(s)' is not yyyyMMdd, yyyy-MM-dd or yyyyMMddHHmmss")
            }
            return v
        }
        let lo = try stamp(since, "since", endOfDay: false) ?? 0
        let hi = try stamp(until, "until", endOfDay: true) ?? Int64.max
        guard lo <= hi else { throw UsageError("\(flag)-since is after \(flag)-until") }
        return lo...hi
    }

    private func eventPeriod() throws(UsageError) -> ClosedRange<Int32>? {
        func day(_ s: String, _ flag: String) throws(UsageError) -> Int32 {
            guard let d = DateBound.day(s) else { throw UsageError("\(flag) '\(s)' is not yyyyMMdd or yyyy-MM-dd") }
            return d
        }
        var lo: Int32?, hi: Int32?
        if let date {
            guard from == nil && to == nil && during == nil else { throw UsageError("--date is one day; do not combine it with --from, --to or --during") }
            lo = try day(date, "--date"); hi = lo
        } else if let during {
            guard from == nil && to == nil else { throw UsageError("--during is --from,--to; use one form") }
            let parts = during.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw UsageError("--during '\(during)' is not from,to") }
            lo = try day(parts[0], "--during"); hi = try day(parts[1], "--during")
        } else {
            if let from { lo = try day(from, "--from") }
            if let to { hi = try day(to, "--to") }
        }
        guard lo != nil || hi != nil else { return nil }
        let period = (lo ?? 0, hi ?? Int32.max)
        guard period.0 <= period.1 else { throw UsageError("the festival period ends before it starts") }
        return period.0...period.1
    }
}

/// A usage error: one line on stderr, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
