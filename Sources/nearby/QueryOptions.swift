import ArgumentParser
import NearbyKit

/// The flags that describe one query, as ArgumentParser declares them (for `--help` and parsing the
/// command line). They carry text only: `parameters` hands it to `QueryParameters.parse`, the one parser
/// the batch files and HTTP use too, so every rule and message is the same wherever a query comes from.
/// Help texts come from `QueryParameters.all`.
struct QueryOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: help("lat")) var lat: String?
    @Option(parsing: .unconditional, help: help("lon")) var lon: String?
    @Option(parsing: .unconditional, help: help("radius")) var radius: String?
    @Option(parsing: .unconditional, help: help("knn")) var knn: String?
    @Option(parsing: .unconditional, help: help("bbox")) var bbox: String?
    @Option(parsing: .unconditionalSingleValue, help: help("category")) var category: [String] = []
    @Option(help: help("areacode")) var areacode: [String] = []
    @Option(help: help("sigungucode")) var sigungucode: [String] = []
    @Option(help: help("region")) var region: [String] = []
    @Option(parsing: .unconditional, help: help("keyword")) var keyword: String?
    @Option(name: .customLong("created-since"), help: help("created-since")) var createdSince: String?
    @Option(name: .customLong("created-until"), help: help("created-until")) var createdUntil: String?
    @Option(name: .customLong("modified-since"), help: help("modified-since")) var modifiedSince: String?
    @Option(name: .customLong("modified-until"), help: help("modified-until")) var modifiedUntil: String?
    @Option(help: help("date")) var date: String?
    @Option(help: help("from")) var from: String?
    @Option(help: help("to")) var to: String?
    @Option(help: help("during")) var during: String?
    @Flag(name: .customLong("with-image"), help: ArgumentHelp(QueryParameters.parameter(named: "with-image")!.help))
    var withImage = false
    @Option(help: help("accessible")) var accessible: [String] = []
    @Option(parsing: .unconditional, help: help("sort")) var sort: String?
    @Option(help: help("arrange")) var arrange: String?
    @Option(parsing: .unconditional, help: help("limit")) var limit: String?
    @Option(parsing: .unconditional, help: help("page")) var page: String?
    @Option(parsing: .unconditional, help: help("cursor")) var cursor: String?
    @Option(help: help("distance")) var distance: String?
    @Option(help: help("cat")) var cat: [String] = []
    @Option(help: help("lcls")) var lcls: [String] = []
    @Option(help: help("ldong")) var ldong: [String] = []
    @Option(name: .customLong("kakao-category"), help: help("kakao-category")) var kakaoCategory: [String] = []
    @Option(help: help("pet")) var pet: [String] = []
    @Option(name: .customLong("has-detail"), help: help("has-detail")) var hasDetail: [String] = []
    @Option(help: help("total")) var total: String?
    @Flag(help: ArgumentHelp(QueryParameters.parameter(named: "explain")!.help)) var explain = false
    @Option(help: help("lang")) var lang: String?
    @Option(help: help("user")) var user: String?
    @Flag(help: flagHelp("bookmarked")) var bookmarked = false
    @Option(name: .customLong("bookmarked-in"), help: help("bookmarked-in")) var bookmarkedIn: String?
    @Option(name: .customLong("min-rating"), help: help("min-rating")) var minRating: String?
    @Flag(name: .customLong("has-memo"), help: flagHelp("has-memo")) var hasMemo = false
    @Flag(help: flagHelp("visited")) var visited = false
    @Flag(name: .customLong("not-visited"), help: flagHelp("not-visited")) var notVisited = false
    @Option(name: .customLong("keyword-in"), help: help("keyword-in")) var keywordIn: [String] = []
    @Flag(name: .customLong("no-history"), help: flagHelp("no-history")) var noHistory = false

    private static func flagHelp(_ name: String) -> ArgumentHelp {
        ArgumentHelp(QueryParameters.parameter(named: name)!.help)
    }

    private static func help(_ name: String) -> ArgumentHelp {
        let p = QueryParameters.parameter(named: name)!
        return ArgumentHelp(p.help, valueName: p.valueName)
    }

    /// The flags given, as `(name, value)` pairs in `QueryParameters`' names (lists one pair a value).
    var parameters: [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) { if let value { out.append((name, value)) } }
        add("lat", lat)
        add("lon", lon)
        add("radius", radius)
        add("knn", knn)
        add("bbox", bbox)
        for c in category { add("category", c) }
        for a in areacode { add("areacode", a) }
        for s in sigungucode { add("sigungucode", s) }
        for r in region { add("region", r) }
        add("keyword", keyword)
        add("created-since", createdSince)
        add("created-until", createdUntil)
        add("modified-since", modifiedSince)
        add("modified-until", modifiedUntil)
        add("date", date)
        add("from", from)
        add("to", to)
        add("during", during)
        if withImage { add("with-image", "true") }
        for a in accessible { add("accessible", a) }
        add("sort", sort)
        add("arrange", arrange)
        add("limit", limit)
        add("page", page)
        add("cursor", cursor)
        add("distance", distance)
        for c in cat { add("cat", c) }
        for c in lcls { add("lcls", c) }
        for c in ldong { add("ldong", c) }
        for c in kakaoCategory { add("kakao-category", c) }
        for p in pet { add("pet", p) }
        for d in hasDetail { add("has-detail", d) }
        add("total", total)
        if explain { add("explain", "true") }
        add("lang", lang)
        add("user", user)
        if bookmarked { add("bookmarked", "true") }
        add("bookmarked-in", bookmarkedIn)
        add("min-rating", minRating)
        if hasMemo { add("has-memo", "true") }
        if visited { add("visited", "true") }
        if notVisited { add("not-visited", "true") }
        for k in keywordIn { add("keyword-in", k) }
        if noHistory { add("no-history", "true") }
        return out
    }
}
