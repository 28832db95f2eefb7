import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

/// `--region`: polygon membership on the real boundaries, combined with every other filter and sort,
/// the same on every engine, and names that are ambiguous refused with their candidates.
@Suite struct RegionQueryTests {
    static let areas = RegionAreas.shared

    /// Places around Seoul's 종로구/중구 and Busan, generated deterministically.
    static let places: [Place] = {
        var g = SplitMix64(seed: 5)
        return (0..<3000).map { n in
            let (lat, lon) = n % 3 == 0 ? (35.10, 129.03) : (37.57, 126.98)
            return Place(
                id: String(n + 1), title: "장소 \(n % 97)", lat: lat + (g.unit() - 0.5) * 0.08,
                lon: lon + (g.unit() - 0.5) * 0.1, category: [12, 39, 14][n % 3],
                created: "20\(10 + n % 15)0101000000", modified: "2024010\(1 + n % 9)000000")
        }
    }()

    @Test func regionQueriesEqualTheBruteForceOnEveryEngine() throws {
        let index = try Self.areas.index()
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("r.sqlite"))
        _ = try Importer().importPlaces(Self.places, into: cache)
        CacheSnapshot.update(cache)
        let engines = try EngineKind.overCache.map { try $0.open(cache) }
        let jongno = try #require({ if case .found(let r) = index.resolve("종로구") { return r } else { return nil } }())
        for extra: [(name: String, value: String)] in [
            [], [("category", "39")], [("sort", "title"), ("limit", "30")],
            [("lat", "37.57"), ("lon", "126.98"), ("radius", "3000")],
            [("keyword", "장소 1"), ("sort", "-created")], [("lat", "37.57"), ("lon", "126.98"), ("knn", "7")],
        ] {
            let pairs = [("region", "서울 종로구")] + (extra.contains { $0.name == "limit" } ? [] : [("limit", "0")]) + extra
            let q = try QueryParameters.parse(pairs, areas: Self.areas)
            let answers = try engines.map { try $0.run(q) }
            #expect(answers.allSatisfy { $0 == answers[0] }, "\(extra)")
            let inside = answers[0].places.filter { index.contains(any: jongno, lat: $0.lat, lon: $0.lon) }
            #expect(inside.count == answers[0].places.count && !answers[0].places.isEmpty, "\(extra)")
            if extra.isEmpty {
                let expected = Self.places.filter { index.contains(any: jongno, lat: $0.lat, lon: $0.lon) }.count
                #expect(answers[0].total == expected && expected > 50)
            }
        }
    }

    /// Every filter the request parser knows, combined with `--region`, equals the brute force: the
    /// same filter without the region, then kept by polygon membership. A filter added to
    /// `QueryParameters.all` without a sample here fails this test, so none is left out.
    @Test func everyFilterCombinedWithARegionEqualsTheBruteForce() throws {
        let index = try Self.areas.index()
        let seoul = try #require({ if case .found(let r) = index.resolve("서울") { return r } else { return nil } }())
        var places = PlaceGenerator(towns: try DefaultDataset.towns(), seed: 11).places(count: 6000)
        for i in places.indices {
            places[i].lclsSystm1 = places[i].category == 39 ? "FD" : "AC"
            places[i].lclsSystm2 = places[i].category == 39 ? "FD05" : "AC01"
            if i % 5 == 0 { places[i].kakaoCategory = places[i].category == 39 ? "FD6" : "AT4" }
            places[i].sigungucode = String(1 + i % 25)  // TourAPI's serials within an area (not generated)
            if i % 3 == 0 { places[i].pet = ["all", "some", "no"][i % 9 / 3] }
            if i % 4 == 1 { places[i].barrierFree = #"{"wheelchair":"대여 가능"}"# }
            if i % 6 == 1 { places[i].petInfo = #"{"acmpyNeedMtr":"목줄"}"# }
        }
        let inSeoul = places.filter { index.contains(any: seoul, lat: $0.lat, lon: $0.lon) }
        let festival = try #require(inSeoul.first { $0.eventStart != nil })
        let some = inSeoul[inSeoul.count / 2]
        let samples: [String: [(String, String)]] = [
            "bbox": [("bbox", "126.9,37.45,127.1,37.65")],
            "category": [("category", "39")],
            "areacode": [("areacode", try #require(some.areacode))],
            "sigungucode": [("sigungucode", try #require(some.sigungucode))],
            "keyword": [("keyword", String(some.title.prefix(2)))],
            "created-since": [("created-since", "2018-01-01")],
            "created-until": [("created-until", "2018-12-31")],
            "modified-since": [("modified-since", "2024-01-01")],
            "modified-until": [("modified-until", "2022-06-30")],
            "date": [("date", try #require(festival.eventStart))],
            "from": [("from", try #require(festival.eventStart)), ("to", try #require(festival.eventEnd))],
            "to": [("from", "20200101"), ("to", try #require(festival.eventEnd))],
            "during": [("during", "\(try #require(festival.eventStart)),\(try #require(festival.eventEnd))")],
            "with-image": [("with-image", "true")],
            "accessible": [("accessible", "wheelchair"), ("accessible", "elderly")],
            "cat": [("cat", "A05")],
            "lcls": [("lcls", "FD05")],
            "ldong": [("ldong", "\(try #require(some.lDongRegnCd))\(try #require(some.lDongSignguCd))")],
            "kakao-category": [("kakao-category", "FD6")],
            "pet": [("pet", "some")],
            "has-detail": [("has-detail", "barrier-free"), ("has-detail", "pet")],
            // The personal conditions, over the items written below for `me`.
            "user": [("user", "me"), ("bookmarked", "true")],
            "bookmarked": [("bookmarked", "true")],
            "bookmarked-in": [("bookmarked-in", "seoul")],
            "min-rating": [("min-rating", "3.5")],
            "has-memo": [("has-memo", "true")],
            "visited": [("visited", "true")],
            "not-visited": [("not-visited", "true"), ("category", "39")],
            "keyword-in": [("keyword", "다시"), ("keyword-in", "title,memo")],
            "no-history": [("keyword", String(some.title.prefix(2))), ("no-history", "true")],
        ]
        let notFilters: Set = [
            "lat", "lon", "radius", "knn", "sort", "arrange", "limit", "page", "cursor", "distance", "region",
            "explain", "total", "lang",
        ]
        for parameter in QueryParameters.all where !notFilters.contains(parameter.name) {
            #expect(samples[parameter.name] != nil, "no sample for the filter \(parameter.name): add one here")
        }

        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("f.sqlite"))
        _ = try Importer().importPlaces(places, into: cache)
        CacheSnapshot.update(cache)
        let personal = PersonalLayer(store: cache)
        for (i, p) in places.enumerated() where i % 7 == 0 {
            try personal.addBookmarks(user: "me", places: [p.id], list: i % 2 == 0 ? "seoul" : nil)
            if i % 3 == 0 { try personal.rate(user: "me", place: p.id, stars: Double(2 + (i / 7) % 9) / 2) }
            if i % 5 == 0 { try personal.memo(user: "me", place: p.id, text: "다시 \(i)") }
            if i % 4 == 0 { try personal.visit(user: "me", place: p.id, at: Int64(i)) }
        }
        func parse(_ pairs: [(String, String)]) throws -> PlaceQuery {
            var q = try QueryParameters.parse(pairs, areas: Self.areas)
            try PersonalLayer.attach(&q, from: cache)
            return q
        }
        let engines = try EngineKind.overCache.map { try $0.open(cache) }
        for (name, filter) in samples.sorted(by: { $0.key < $1.key }) {
            let everywhere = try engines[0].run(try parse(filter + [("limit", "0")]))
            let expected = everywhere.places.filter { index.contains(any: seoul, lat: $0.lat, lon: $0.lon) }.map(\.id)
            #expect(!expected.isEmpty, "\(name): the sample finds nothing in 서울, so it tests nothing")
            let q = try parse(filter + [("region", "서울"), ("limit", "0")])
            for engine in engines {
                let answer = try engine.run(q)
                #expect(answer.places.map(\.id) == expected && answer.total == expected.count, "\(name) on \(engine)")
            }
        }
    }

    /// data/ldong-codes.tsv holds the index's table, so `--ldong` answers the same without the boundaries.
    @Test func theLegalDongTableIsTheIndex_s() throws {
        let index = try Self.areas.index()
        let table = LegalDongCodes(index: index)
        let file = try #require(try RegionData.legalDongCodes(), "data/\(LegalDongCodes.fileName) is missing")
        #expect(
            file == table,
            "data/\(LegalDongCodes.fileName) is stale: swift run nearby region --render-ldong-codes > data/\(LegalDongCodes.fileName)"
        )
        let folder = try TempFolder()
        try table.rendered.write(toFile: folder.file("codes.tsv"), atomically: true, encoding: .utf8)
        #expect(try LegalDongCodes(contentsOf: folder.file("codes.tsv")) == table)
        #expect(table.codes["11"] == ["11"] && table.codes["42"] == ["42", "51"])
        // Read from the table or from the index, the same codes.
        let fromIndex = RegionAreas { index }
        for code in ["11", "42", "51", "27720", "47720", "41110"] {
            #expect(try Self.areas.legalDongCodes(code) == fromIndex.legalDongCodes(code), "\(code)")
        }
    }

    /// `--ldong` accepts old and new legal-dong codes (data/region-code-changes.tsv) and finds places
    /// stored with either, on every engine.
    @Test func legalDongCodesOldAndNew() throws {
        #expect(try Self.areas.legalDongCodes("42") == ["42", "51"])
        #expect(try Self.areas.legalDongCodes("51").isSuperset(of: ["42", "51"]))
        #expect(try Self.areas.legalDongCodes("27720").contains("47720"))
        #expect(try Self.areas.legalDongCodes("47720").contains("27720"))
        #expect(throws: RequestError.self) { try Self.areas.legalDongCodes("99") }
        let places = [
            Place(
                id: "1", title: "춘천 옛 코드", lat: 37.88, lon: 127.73, category: 12, lDongRegnCd: "42",
                lDongSignguCd: "110"),
            Place(
                id: "2", title: "춘천 새 코드", lat: 37.88, lon: 127.73, category: 12, lDongRegnCd: "51",
                lDongSignguCd: "110"),
            Place(id: "3", title: "종로", lat: 37.57, lon: 126.98, category: 12, lDongRegnCd: "11", lDongSignguCd: "110"),
            Place(id: "4", title: "코드 없음", lat: 37.88, lon: 127.73, category: 12),
        ]
        let dir = try TempFolder()
        let cache = try PlaceCache(path: dir.file("l.sqlite"))
        _ = try Importer().importPlaces(places, into: cache)
        CacheSnapshot.update(cache)
        let engines = try EngineKind.overCache.map { try $0.open(cache) }
        for (codes, expected) in [
            ("51", ["1", "2"]), ("42", ["1", "2"]), ("51110", ["1", "2"]), ("11,42110", ["1", "2", "3"]),
            ("11110", ["3"]),
        ] {
            let q = try QueryParameters.parse([("ldong", codes), ("limit", "0")], areas: Self.areas)
            for engine in engines { #expect(try engine.run(q).places.map(\.id) == expected, "\(codes)") }
        }
    }

    @Test func namesCodesAndAmbiguity() throws {
        let byName = try QueryParameters.parse([("region", "종로구")], areas: Self.areas)
        let byCode = try QueryParameters.parse([("region", "11110")], areas: Self.areas)
        #expect(byName.filter.region == byCode.filter.region && byName.filter.region?.codes == ["11110"])
        do {
            _ = try QueryParameters.parse([("region", "중구")], areas: Self.areas)
            Issue.record("중구 is ambiguous")
        } catch {
            #expect(
                error.parameter == "region" && error.reason.contains("ambiguous") && error.reason.contains("서울특별시 중구"))
        }
        #expect(throws: RequestError.self) { try QueryParameters.parse([("region", "아틀란티스")], areas: Self.areas) }
        // The region renders to its codes, so a cursor's fingerprint covers it.
        #expect(QueryParameters.render(byName).contains { $0.name == "region" && $0.value == "11110" })
        let two = try QueryParameters.parse([("region", "종로구"), ("region", "부산 중구")], areas: Self.areas)
        #expect(two.filter.region?.codes.count == 2)
    }
}
