import Foundation
import NearbyKit
import Testing

@testable import NearbyBench

/// `SharedWorkload` against files written by ../shared/workload/make_dataset.py (Fixtures/README.md).
@Suite struct SharedWorkloadTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func generate(places: Int, queries: Int, seed: Int, chunkSize: Int = 1 << 20) throws -> (
        places: [[UInt8]], queries: [[UInt8]]
    ) {
        var p: [[UInt8]] = []
        var q: [[UInt8]] = []
        SharedWorkload.generate(
            towns: try DefaultDataset.towns(), placeCount: places, queryCount: queries, seed: seed,
            chunkSize: chunkSize, places: { p.append($0) }, queries: { q.append($0) })
        return (p, q)
    }

    func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
    }

    /// The first line where two files differ, for a readable failure.
    func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let la = a.split(separator: 0x0A, omittingEmptySubsequences: false)
        let lb = b.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (i, (x, y)) in zip(la, lb).enumerated() where x != y {
            return
                "line \(i + 1): got '\(String(decoding: x, as: UTF8.self))', expected '\(String(decoding: y, as: UTF8.self))'"
        }
        return "\(la.count) lines against \(lb.count)"
    }

    @Test(arguments: [(300, 60, 42), (1000, 100, 7)])
    func matchesPythonByteForByte(places: Int, queries: Int, seed: Int) throws {
        let name = "workload-\(places)-\(queries)-seed\(seed)"
        let out = try Self.generate(places: places, queries: queries, seed: seed)
        let (p, q) = (out.places.flatMap { $0 }, out.queries.flatMap { $0 })
        let (ep, eq) = (try fixture(name + ".places.tsv"), try fixture(name + ".queries.tsv"))
        let (samePlaces, sameQueries) = (p == ep, q == eq)  // compared outside #expect: no dump of the bytes
        #expect(samePlaces, "places: \(firstDifference(p, ep))")
        #expect(sameQueries, "queries: \(firstDifference(q, eq))")
    }

    @Test func smallChunksAreWholeLinesOfTheSameBytes() throws {
        let whole = try Self.generate(places: 300, queries: 60, seed: 42)
        let chunked = try Self.generate(places: 300, queries: 60, seed: 42, chunkSize: 500)
        #expect(chunked.places.count > 10 && chunked.queries.count > 1)
        #expect(chunked.places.allSatisfy { $0.last == 0x0A } && chunked.queries.allSatisfy { $0.last == 0x0A })
        let samePlaces = chunked.places.flatMap { $0 } == whole.places.flatMap { $0 }
        let sameQueries = chunked.queries.flatMap { $0 } == whole.queries.flatMap { $0 }
        #expect(samePlaces && sameQueries)
    }

    @Test func noPlacesOrQueriesGivesHeadersOnly() throws {
        let out = try Self.generate(places: 0, queries: 0, seed: 42)
        #expect(out.places == [Array(SharedWorkload.placesHeader.utf8)])
        #expect(out.queries == [Array(SharedWorkload.queriesHeader.utf8)])
    }

    /// The places do not depend on the number of queries (which follow them in the random stream).
    @Test func placesDoNotDependOnTheQueryCount() throws {
        let alone = try Self.generate(places: 300, queries: 0, seed: 42).places.flatMap { $0 }
        let same = alone == (try fixture("workload-300-60-seed42.places.tsv"))
        #expect(same)
    }

    /// Python's `f"{x:.7f}"` / `f"{x:.6f}"` as printed by CPython 3.11: ties to even on the exact binary
    /// value, signed zero, huge values in full.
    @Test func decimalsAreFormattedAsPythonDoes() {
        let cases: [(Double, String, String)] = [
            (37.00390625, "37.0039062", "37.003906"),
            (127.12345675, "127.1234568", "127.123457"),
            (5e-08, "0.0000000", "0.000000"),
            (-5e-08, "-0.0000000", "-0.000000"),
            (-0.0, "-0.0000000", "-0.000000"),
            (1e17, "100000000000000000.0000000", "100000000000000000.000000"),
            (126.9697745, "126.9697745", "126.969774"),
            (37.5000000499999, "37.5000000", "37.500000"),
        ]
        for (x, seven, six) in cases {
            var b = SharedWorkload.LineBuffer(capacity: 0)
            b.append(x, decimals: 7)
            b.tab()
            b.append(x, decimals: 6)
            #expect(String(decoding: b.bytes, as: UTF8.self) == seven + "\t" + six, "\(x)")
        }
        var huge = SharedWorkload.LineBuffer(capacity: 0)
        huge.append(1e300, decimals: 7)
        #expect(
            huge.bytes.count == 301 + 8 && huge.bytes.starts(with: Array("10000000000000000525047602552044202487".utf8))
        )
    }

    /// The printf-free path against C's printf on values of every kind it takes: coordinates, exact
    /// ties (multiples of 2⁻⁸ are ties at 7 decimals, of 2⁻⁷ at 6), tiny and negative values, values
    /// next to the 2⁵² limit where printf takes over.
    @Test func decimalsMatchPrintf() {
        var g = SplitMix64(seed: 11)
        var values: [Double] = []
        for _ in 0..<4_000 {
            values.append(g.unit() * 200 - 20)
            values.append(Double(g.below(1 << 20)) / 256 - 100)
            values.append(Double(g.below(1 << 20)) / 128)
            values.append((g.unit() - 0.5) * 1e-5)
            values.append(g.unit() * 0x1p52 / 1e7)
        }
        values += [
            0, -0.0, 0.5e-7, 0x1p52 / 1e7, 0x1p52 / 1e6, (0x1p52 / 1e7).nextDown, .leastNonzeroMagnitude, -1e-300,
        ]
        var mismatches: [String] = []
        for x in values {
            for d in [0, 1, 6, 7] {
                var fast = SharedWorkload.LineBuffer(capacity: 0)
                var printf = SharedWorkload.LineBuffer(capacity: 0)
                fast.append(x, decimals: d)
                printf.appendPrintf(x, decimals: d)
                if fast.bytes != printf.bytes, mismatches.count < 5 {
                    mismatches.append(
                        "\(x) .\(d)f: \(String(decoding: fast.bytes, as: UTF8.self)) vs printf \(String(decoding: printf.bytes, as: UTF8.self))"
                    )
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func stampsAndPaddedIntegers() {
        var b = SharedWorkload.LineBuffer(capacity: 0)
        b.appendStamp(0)
        b.tab()
        b.appendStamp(0.999)
        b.tab()
        b.appendStamp(Double(21 * 360 * 86_400) - 0.5)
        b.tab()
        b.appendStamp(360 * 86_400 + 31 * 86_400 + 3600 * 13 + 60 * 7 + 9)
        b.tab()
        b.append(7, width: 4)
        b.tab()
        b.append(0)
        b.tab()
        b.append(12345, width: 2)
        #expect(
            String(decoding: b.bytes, as: UTF8.self)
                == "20040101000000\t20040101000000\t20241230235959\t20050202130709\t0007\t0\t12345")
    }
}
