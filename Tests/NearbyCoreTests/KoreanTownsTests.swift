import Foundation
import NearbyTestSupport
import Testing

@testable import NearbyCore

@Suite struct KoreanTownsTests {
    static let header = KoreanTowns.columns.joined(separator: "\t")

    func parse(_ text: String) throws -> [KoreanTown] {
        try KoreanTowns.parse(Data(text.utf8), source: "t.tsv")
    }

    func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch { return "\(error)" }
    }

    @Test func shippedFileHasEveryTownAndVillage() throws {
        let towns = try RepositoryData.towns()
        #expect(towns.count == 20_323)
        #expect(towns.filter { $0.level == .emd }.count == 5_026)
        #expect(towns.filter { $0.level == .ri }.count == 15_297)
        #expect(Set(towns.map(\.code)).count == towns.count)
        for t in towns {
            #expect((33.0...38.7).contains(t.lat) && (124.5...132.0).contains(t.lon), "\(t.code)")
            #expect(t.code.count == (t.level == .emd ? 8 : 10), "\(t.code)")
            #expect(!t.name.isEmpty)
        }
        let first = try #require(towns.first)
        #expect(first.code == "11110101" && first.address == "서울특별시 종로구 청운동" && first.name == "청운동")
    }

    @Test func parsesRowsAndSkipsABlankLastLine() throws {
        let towns = try parse(
            """
            \(Self.header)
            4157031022\tri\t경기도\t김포시\t\t풍곡리\t37.616681\t126.763773\t4.6412
            11110101\temd\t서울특별시\t종로구\t청운동\t\t37.589018\t126.969774\t0.8122

            """)
        #expect(towns.count == 2)
        #expect(towns[0].address == "경기도 김포시 풍곡리" && towns[0].name == "풍곡리" && towns[0].level == .ri)
        #expect(towns[1].lat == 37.589018 && towns[1].areaKm2 == 0.8122 && towns[1].ri.isEmpty)
    }

    @Test func badInputNamesFileLineAndField() {
        #expect(error("code\tlat\n").hasPrefix("t.tsv:1: header: expected code level"))
        #expect(
            error("\(Self.header)\n11110101\temd\t서울\t종로구\t청운동\t\t37.5\n")
                == "t.tsv:2: line: 7 fields, expected 9")
        #expect(
            error("\(Self.header)\n11110101\temd\t서울\t종로구\t청운동\t\t97.5\t126.9\t1\n")
                == "t.tsv:2: lat: '97.5' is not a latitude")
        #expect(
            error("\(Self.header)\n11110101\ttown\t서울\t종로구\t청운동\t\t37.5\t126.9\t1\n")
                == "t.tsv:2: level: 'town' is not emd or ri")
        #expect(
            error("\(Self.header)\n11x\temd\t서울\t종로구\t청운동\t\t37.5\t126.9\t1\n")
                == "t.tsv:2: code: '11x' is not an administrative code of at least 5 digits")
        #expect(
            error("\(Self.header)\n11110101\temd\t서울\t종로구\t청운동\t\t37.5\t126.9\t-1\n")
                == "t.tsv:2: area_km2: '-1' is not an area")
        #expect(error("\(Self.header)\n") == "t.tsv: no towns")
    }
}
