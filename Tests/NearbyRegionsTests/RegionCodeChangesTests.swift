import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyRegions

/// The dated change table, applied to source codes.
@Suite struct RegionCodeChangesTests {
    func table() throws -> RegionCodeChanges {
        let data = URL(fileURLWithPath: try RepositoryData.regionsPath()).deletingLastPathComponent()
        return try RegionCodeChanges(contentsOf: data.appendingPathComponent(RegionIndex.changesFileName).path)
    }

    @Test func recodesCarryTheTownDigits() throws {
        let t = try table()
        let gangwon = t.apply(to: "4211010100")
        #expect(gangwon.code == "5111010100" && gangwon.sigungu == "51110" && gangwon.sidoName == "강원특별자치도")
        #expect(gangwon.former == ["42", "42110", "42110101", "4211010100"])
        let gunwi = t.apply(to: "47720250")
        #expect(gunwi.code == "27720250" && gunwi.sigungu == "27720")
        #expect(gunwi.former == ["47720", "47720250"])
        #expect(t.apply(to: "11110119") == RegionCodeChanges.Result(code: "11110119", sigungu: "11110", former: []))
    }

    @Test func movesPickTheLongestMatch() throws {
        let t = try table()
        #expect(t.apply(to: "28110145").sigungu == "28155")  // 중산동 → 영종구
        #expect(t.apply(to: "28110101").sigungu == "28125")  // 중앙동1가 → 제물포구
        #expect(t.apply(to: "28140101").sigungu == "28125")  // 동구 → 제물포구
        #expect(t.apply(to: "28110145").code == "28110145")  // town digits stay the source's
        #expect(t.apply(to: "4371025021").sigungu == "43114")  // 내수읍 → 청원구
        #expect(t.apply(to: "43710256").sigungu == "43113")  // 오송읍 → 흥덕구
        #expect(t.apply(to: "43710256").sigunguName == "청주시 흥덕구")
    }

    @Test func badRowsNameTheLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("changes.tsv").path
        try "# comment\ndate\tkind\tfrom\tto\tname\tsource\n2023-06-11\trename\t42\t51\tx\ty\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RegionCodeChanges.FormatError.self) { try RegionCodeChanges(contentsOf: path) }
        do {
            _ = try RegionCodeChanges(contentsOf: path)
        } catch {
            #expect("\(error)" == "\(path):3: kind 'rename' is neither recode nor move")
        }
        try "date\tkind\tfrom\tto\tname\tsource\n2023-06-11\trecode\t42\t511\tx\ty\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RegionCodeChanges.FormatError.self) { try RegionCodeChanges(contentsOf: path) }
        // A truncated boundary file is an error with the path, not a crash.
        let bin = folder.appendingPathComponent("cut.bin").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: try RepositoryData.regionsPath()))
        try whole.prefix(100_000).write(to: URL(fileURLWithPath: bin))
        do {
            _ = try RegionFile(contentsOf: bin)
            Issue.record("a truncated file should not load")
        } catch {
            #expect("\(error)".hasPrefix(bin + ": not a region boundary file"))
        }
    }
}
