import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

@Suite struct PlaceGeneratorTests {
    static let towns = try! RepositoryData.towns()

    func tsv(_ places: [Place]) -> [UInt8] {
        var out: [UInt8] = []
        for p in places { PlaceGenerator.appendTSV(p, to: &out) }
        return out
    }

    /// FNV-1a, 64-bit: a fixed checksum to pin the generator's exact bytes.
    func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    @Test func sameSeedSameBytesAndPlacesDoNotDependOnCount() {
        let a = PlaceGenerator(towns: Self.towns, seed: 42).places(count: 2000)
        let b = PlaceGenerator(towns: Self.towns, seed: 42).places(count: 2000)
        #expect(tsv(a) == tsv(b))
        #expect(a.map(\.id) == (1...2000).map(String.init))
        let few = PlaceGenerator(towns: Self.towns, seed: 42).places(count: 10)
        #expect(few == Array(a.prefix(10)))
        let other = PlaceGenerator(towns: Self.towns, seed: 43).places(count: 2000)
        #expect(tsv(other) != tsv(a))
        #expect(PlaceGenerator(towns: Self.towns, seed: 42).places(count: 0).isEmpty)
    }

    /// Pins the exact output: uses only integer and exact IEEE arithmetic, so these bytes must be the
    /// same on every platform. A deliberate generator change updates this and `DefaultDataset.version`.
    @Test func pinnedBytes() {
        let places = PlaceGenerator(towns: Self.towns, seed: 2026).places(count: 1000)
        #expect(fnv1a(tsv(places)) == 7_148_582_454_963_053_789)
    }

    @Test func tsvHasTheWorkloadColumnsFirstAndOneFieldPerColumn() {
        #expect(
            Array(PlaceGenerator.tsvColumns.prefix(9))
                == ["id", "lat", "lon", "category", "title", "created", "modified", "areacode", "sigungucode"])
        let places = PlaceGenerator(towns: Self.towns, seed: 1).places(count: 500)
        let lines = String(decoding: tsv(places), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 501 && lines.last == "")
        for (line, p) in zip(lines, places) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            #expect(f.count == PlaceGenerator.tsvColumns.count)
            #expect(Double(f[1]) == p.lat && Double(f[2]) == p.lon && String(f[4]) == p.title)
            #expect(f[17] == p.accessibility.joined(separator: ";")[...])
        }
    }

    @Test func statisticalShape() throws {
        let n = 20_000
        let places = PlaceGenerator(towns: Self.towns, seed: 7).places(count: n)
        var perCategory: [Int: Int] = [:]
        for p in places { perCategory[p.category, default: 0] += 1 }
        let expected = [39: 0.30, 12: 0.20, 38: 0.12, 32: 0.10, 14: 0.10, 28: 0.08, 15: 0.06, 25: 0.04]
        #expect(Set(perCategory.keys) == Set(expected.keys))
        for (c, share) in expected {
            #expect(abs(Double(perCategory[c]!) / Double(n) - share) < 0.015, "category \(c)")
        }
        func share(_ f: (Place) -> Bool) -> Double { Double(places.filter(f).count) / Double(n) }
        #expect(abs(share { $0.image != nil } - 0.6) < 0.02)
        #expect(abs(share { !$0.accessibility.isEmpty } - 0.3) < 0.02)
        #expect(abs(share { $0.tel != nil } - 0.5) < 0.02)
        #expect(
            share {
                $0.title.unicodeScalars.contains {
                    $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)
                }
            } > 0.2)

        var sidoOf: [String: String] = [:]  // lDongRegnCd + lDongSignguCd → province name
        for t in Self.towns { sidoOf[String(t.code.prefix(5))] = t.sido }
        for p in places {
            #expect((33.0...38.75).contains(p.lat) && (124.5...132.0).contains(p.lon), "\(p.id)")
            let created = try #require(p.created)
            let modified = try #require(p.modified)
            #expect(created.count == 14 && modified.count == 14 && modified >= created)
            #expect(isRealTimestamp(created) && isRealTimestamp(modified), "\(created) \(modified)")
            let regn = try #require(p.lDongRegnCd)
            let signgu = try #require(p.lDongSignguCd)
            let sido = try #require(sidoOf[regn + signgu])
            // areacode is TourAPI's areaCode of the legal-dong 시도; TourAPI's sigunguCode is not generated.
            #expect(p.areacode == TourAreaCode.areaCode(legalDong: regn) && p.areacode != nil && p.sigungucode == nil)
            #expect(p.addr!.hasPrefix(sido))
            #expect(p.accessibility == Array(Set(p.accessibility)).sorted())
            #expect(p.accessibility.allSatisfy { Accessibility.bit($0) != nil })
            if p.category == 15 {
                let s = try #require(p.eventStart)
                let e = try #require(p.eventEnd)
                #expect(isRealTimestamp(s + "000000") && isRealTimestamp(e + "000000") && s <= e)
            } else {
                #expect(p.eventStart == nil && p.eventEnd == nil)
            }
            if let image = p.image { #expect(image.hasPrefix("http://tong.visitkorea.or.kr/cms/resource/")) }
            #expect(p.title == TextNormalization.nfc(p.title) && !p.title.contains("\t"))
        }
    }

    /// A real calendar date-time `yyyyMMddHHmmss` (leap years included).
    func isRealTimestamp(_ s: String) -> Bool {
        let d = s.compactMap(\.wholeNumberValue)
        guard d.count == 14 else { return false }
        func n(_ r: Range<Int>) -> Int { d[r].reduce(0) { $0 * 10 + $1 } }
        let (y, m, day) = (n(0..<4), n(4..<6), n(6..<8))
        guard (1...12).contains(m), n(8..<10) < 24, n(10..<12) < 60, n(12..<14) < 60 else { return false }
        return CivilDate.civil(day: CivilDate.days(year: y, month: m, day: day)) == (y, m, day)
    }

    @Test func denseTownsGetMorePlaces() {
        // The share of draws landing in towns under 1 km² matches their share of the 1/(area+0.3) weights.
        let g = PlaceGenerator(towns: Self.towns, seed: 3)
        var rng = SplitMix64(seed: 11)
        let n = 50_000
        var small = 0
        for _ in 0..<n where Self.towns[g.pickTown(&rng)].areaKm2 < 1 { small += 1 }
        let weight = { (t: KoreanTown) in 1 / (t.areaKm2 + 0.3) }
        let expected =
            Self.towns.filter { $0.areaKm2 < 1 }.map(weight).reduce(0, +) / Self.towns.map(weight).reduce(0, +)
        #expect(abs(Double(small) / Double(n) - expected) < 0.01)
        #expect(expected > 0.3)  // the weighting matters: small towns are far less than 30 % of the area
    }

    @Test func positionsAreUniformInTheTownDisc() {
        let town = Self.towns.first { $0.areaKm2 > 50 }!
        let r = (town.areaKm2 / Double.pi).squareRoot() * 1000
        let places = PlaceGenerator(towns: [town], seed: 5).places(count: 4000)
        let d = places.map { Haversine.distance(lat1: town.lat, lon1: town.lon, lat2: $0.lat, lon2: $0.lon) }
        #expect(d.allSatisfy { $0 <= r * 1.01 })
        // Uniform in a disc: mean distance 2r/3, and a quarter of the points within r/2.
        #expect(abs(d.reduce(0, +) / Double(d.count) / r - 2.0 / 3) < 0.02)
        #expect(abs(Double(d.filter { $0 <= r / 2 }.count) / Double(d.count) - 0.25) < 0.03)
    }

    /// With a region test, points outside the town's region are drawn again from a stream of their
    /// own: the points kept are inside, and nothing else about the place changes. A town no point of
    /// which is inside gets the codes of the region its point lies in.
    @Test func regionTestKeepsPointsInsideAndChangesNothingElse() {
        let town = Self.towns.first { $0.areaKm2 > 50 }!
        // The northern half of the disc is the town's region; the southern half is region 99999.
        let north: PlaceGenerator.RegionTest = { lat, _, _, _ in
            lat >= town.lat ? .inside : .outside(lDongRegnCd: "99", lDongSignguCd: "999")
        }
        let plain = PlaceGenerator(towns: [town], seed: 5).places(count: 2000)
        let kept = PlaceGenerator(towns: [town], seed: 5, regions: north).places(count: 2000)
        #expect(kept.allSatisfy { $0.lat >= town.lat })
        for (a, b) in zip(plain, kept) {
            if a.lat >= town.lat { #expect(a == b) }
            var a = a
            (a.lat, a.lon) = (b.lat, b.lon)
            #expect(a == b)
        }
        let nowhere: PlaceGenerator.RegionTest = { _, _, _, _ in .outside(lDongRegnCd: "44", lDongSignguCd: "270") }
        let recoded = PlaceGenerator(towns: [town], seed: 5, regions: nowhere).places(count: 50)
        #expect(recoded.allSatisfy { $0.lDongRegnCd == "44" && $0.lDongSignguCd == "270" && $0.areacode == "34" })
        #expect(zip(recoded, plain).allSatisfy { $0.lat == $1.lat && $0.lon == $1.lon })
    }

    @Test func calendarRoundTripsAndKnowsLeapYears() {
        #expect(CivilDate.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.days(year: 2024, month: 3, day: 1) - CivilDate.days(year: 2024, month: 2, day: 28) == 2)
        #expect(CivilDate.days(year: 2100, month: 3, day: 1) - CivilDate.days(year: 2100, month: 2, day: 28) == 1)
        for day in stride(from: -1000, to: 30_000, by: 7) {
            let c = CivilDate.civil(day: day)
            #expect(CivilDate.days(year: c.year, month: c.month, day: c.day) == day)
        }
        #expect(CivilDate.timestamp(second: 86_400 * 19_783 + 3_723) == "20240301010203")
    }

    @Test func cosineMatchesLibm() {
        for lat in stride(from: 30.0, through: 45.0, by: 0.37) {
            #expect(abs(PlaceGenerator.cosine(degrees: lat) - cos(lat * .pi / 180)) < 1e-12)
        }
    }
}

@Test func generatedPlacesRoundTripThroughPlaceJSON() throws {
    let places = PlaceGenerator(towns: PlaceGeneratorTests.towns, seed: 9).places(count: 300)
    for p in places {
        var line: [UInt8] = []
        PlaceJSON.append(p, to: &line)
        #expect(try PlaceJSON.decode(line) == p)
    }
}
