import Foundation
import NearbyTestSupport
import Testing

/// `nearby import` over a mixed folder of TourAPI and Kakao files as people save them
/// (Tests/NearbyStoreTests/Fixtures/RealData): every place with coordinates arrives, each record that is
/// not one is named, and an import that keeps nothing fails.
@Suite struct ImportRealDataCommandTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NearbyStoreTests/Fixtures/RealData")

    @Test func mixedFolderImportsEveryPlaceWithCoordinates() throws {
        let refused: Set = ["capture-error.json", "no-places.json", "utf16-export.txt", "README.md"]
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            !refused.contains($0)
        }.sorted()
        #expect(names.count == 14)
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        let result = try CLIRunner.run(
            ["import", "--db", db] + names.map { Self.folder.appendingPathComponent($0).path })
        #expect(result.status == 0, "\(result.stderr)")
        let rejected = result.stderr.split(separator: "\n").filter { !$0.contains(": warning: ") }
            .map { String($0.split(separator: "/").last ?? "") }
        #expect(
            rejected.sorted() == [
                "collector.json:4: mapx: 0 is TourAPI's placeholder for a place without coordinates",
                "items.jsonl:3: mapx: missing",
                "items.jsonl:4: mapx: 0 is TourAPI's placeholder for a place without coordinates",
                #"tourapi-export.csv:6: mapy: "북위 37도" is not a number"#,
            ])
        let ids = try CLIRunner.run(["export", "--db", db]).lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(
            Set(ids) == [
                "126508", "126511", "2750143", "2750144", "125405", "125406", "126036", "125466", "125467",
                "126535", "129703", "2733967", "2733968", "3100002", "2900001", "2900002",
                "kakao:1234567801", "kakao:1234567802", "kakao:1234567803", "kakao:2234567801", "kakao:2234567802",
            ])
    }

    /// KorService2's code filters and Kakao's category group over the mixed folder: TourAPI and Kakao
    /// cafés both answer `--cat A05020900`.
    @Test func codeFiltersOverTourAPIAndKakaoPlaces() throws {
        let refused: Set = ["capture-error.json", "no-places.json", "utf16-export.txt", "README.md"]
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            !refused.contains($0)
        }
        let dir = try TempFolder()
        let db = dir.file("c.sqlite")
        #expect(
            try CLIRunner.run(["import", "--db", db] + names.map { Self.folder.appendingPathComponent($0).path }).status
                == 0)
        func ids(_ flags: String...) throws -> [String] {
            let r = try CLIRunner.run(["query", "--db", db, "--limit", "0", "--fields", "id"] + flags)
            #expect(r.status == 0, "\(flags): \(r.stderr)")
            return r.lines.map {
                $0.replacingOccurrences(of: "{\"id\":\"", with: "").replacingOccurrences(of: "\"}", with: "")
            }
        }
        #expect(try ids("--kakao-category", "CE7") == ["kakao:1234567801"])
        #expect(
            try ids("--kakao-category", "ce7", "--kakao-category", "FD6") == ["kakao:1234567801", "kakao:2234567801"])
        #expect(try ids("--cat", "A05020900") == ["2750143", "kakao:1234567801"])
        #expect(try ids("--cat", "A05") == ["2750143", "2900001", "kakao:1234567801"])
        #expect(try ids("--lcls", "FD05") == ["2750143"])
        #expect(try ids("--lcls", "HS") == ["126508", "126511"])
        #expect(try ids("--ldong", "11110") == ["126508", "126511"])
        #expect(try ids("--ldong", "26", "--cat", "A05") == ["2750143"])
        let bad = try CLIRunner.run(["query", "--db", db, "--ldong", "1111"])
        #expect(bad.status == 2 && bad.stderr.contains("--ldong: \"1111\" is not a 2-digit lDongRegnCd"))
        // The barrier-free and pet details of the folder, merged into their places.
        #expect(try ids("--accessible", "visual") == ["126508"])
        #expect(try ids("--accessible", "infants", "--ldong", "11") == ["126508"])
        #expect(try ids("--pet", "some", "--pet", "no") == ["126511", "2733968"])
        // --areacode is TourAPI's areaCode (서울 1); the legal-dong 11 is pointed to --ldong.
        #expect(try ids("--areacode", "1") == ["126508", "126535", "129703", "2900001", "2900002"])
        let seoul = try CLIRunner.run(["query", "--db", db, "--areacode", "11"])
        #expect(
            seoul.status == 2
                && seoul.stderr.contains(
                    "--areacode: \"11\" is not a TourAPI areaCode (1–8, 31–39); 11 is a legal-dong 시도 code (서울): use --ldong 11"
                ), "\(seoul.stderr)")
        let pet = try CLIRunner.run(["query", "--db", db, "--pet", "yes"])
        #expect(pet.status == 2 && pet.stderr.contains("--pet: \"yes\" is not one of all, some, no"), "\(pet.stderr)")
    }

    /// Region codes at import: codes derived from coordinates for places without them (marked), a warning
    /// with `file:line` for each place whose codes name another region (kept), a summary count.
    @Test func regionCodesAreDerivedOrCheckedAtImport() throws {
        let dir = try TempFolder()
        let input = try dir.write(
            "places.csv",
            """
            contentid,contenttypeid,title,mapx,mapy,lDongRegnCd,lDongSignguCd
            1,12,경복궁,126.9767,37.5760,,
            2,12,경복궁 잘못된 코드,126.9767,37.5760,26,350
            3,12,경복궁 옛 코드 없음,126.9767,37.5760,11,110
            4,12,춘천 옛 코드,127.7300,37.8800,42,110
            5,12,바다,125.0000,34.0000,,
            6,12,부산 수영구,129.1130,35.1530,26,
            """.replacingOccurrences(of: "    ", with: ""))
        let db = dir.file("c.sqlite")
        let result = try CLIRunner.run(["import", "--db", db, input])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 2, "\(result.stderr)")
        #expect(
            warnings.first.map {
                $0.hasSuffix(
                    "places.csv:3: lDongRegnCd: warning: lDongRegnCd 26 lDongSignguCd 350 but (37.576, 126.9767) is in 서울특별시 종로구 (11110); imported as given"
                )
            } == true, "\(warnings)")
        #expect(
            warnings.last
                == "nearby import: warning: 1 place's lDongRegnCd/lDongSignguCd disagree with their coordinates (imported as given)"
        )
        let rows = try CLIRunner.run(["export", "--db", db]).lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func codes(_ id: String) -> [String?] {
            let r = rows.first { $0["id"] as? String == id }
            return ["lDongRegnCd", "lDongSignguCd", "lDongSource"].map { r?[$0] as? String }
        }
        #expect(codes("1") == ["11", "110", "coordinates"])
        #expect(codes("2") == ["26", "350", nil])
        #expect(codes("3") == ["11", "110", nil])
        #expect(codes("4") == ["42", "110", nil])
        #expect(codes("5") == [nil, nil, nil])
        #expect(codes("6") == ["26", nil, nil])
        let found = try CLIRunner.run(["query", "--db", db, "--ldong", "11110", "--limit", "0", "--fields", "id"]).lines
        #expect(found == [#"{"id":"1"}"#, #"{"id":"3"}"#])
    }

    @Test func anImportWhoseEveryRecordIsRejectedFails() throws {
        let dir = try TempFolder()
        let input = try dir.write("bad.csv", "contentid,contenttypeid,title,mapx,mapy\n1,12,a,127,north\n")
        let result = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), input])
        #expect(result.status == 1)
        #expect(result.stderr.contains("every record was rejected; nothing was imported"))
    }

    @Test func encodingFlag() throws {
        let dir = try TempFolder()
        let cp949 = Self.folder.appendingPathComponent("tourapi-export-cp949.csv").path
        let forced = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), "--encoding", "euc-kr", cp949])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try counts(forced)["inserted"] == 2)
        let unknown = try CLIRunner.run(["import", "--db", dir.file("c.sqlite"), "--encoding", "latin1", cp949])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown encoding 'latin1'"))
    }
}
