import NearbyTestSupport
import Testing

@testable import NearbyCore

/// `PackedColumn` holds any values exactly, in the fewest bytes its frame needs.
@Suite struct PackedColumnTests {
    @Test func valuesComeBackExactlyAtEveryWidth() {
        var g = QuerySampler(seed: 11)
        for width in 1...8 {
            // Spans just below and at the next width's threshold (code = v − base + 1, 0 kept for 0).
            let top = width == 8 ? Int64.max : Int64(1) << (8 * width) - 1
            for base: Int64 in [1, -5, 20_260_101_000_000] where width < 8 || base < 0 {
                let last = base &+ top &- 1
                var values: [Int64] = [0, base, last, 0]
                for _ in 0..<200 {
                    values.append(g.chance(0.1) ? 0 : base &+ Int64(bitPattern: g.next() % UInt64(bitPattern: top)))
                }
                let column = PackedColumn(values)
                #expect(column.width == width, "width for span \(top), base \(base)")
                #expect(Array(column) == values)
                #expect(column.byteCount == values.count * width)
                #expect(PackedColumn([base, last &+ 1]).width == min(8, width + 1) || width == 8)
            }
        }
    }

    @Test func theWidthsOfTourAPIColumns() {
        #expect(PackedColumn<Int32>([12, 14, 15, 25, 28, 32, 38, 39, 0]).width == 1)
        #expect(PackedColumn<Int32>([2000_01_01, 2030_12_31, 0]).width == 3)
        #expect(PackedColumn<Int64>([2000_01_01_000000, 2030_12_31_235959, 0]).width == 5)
        #expect(PackedColumn<Int32>([Int32.min, Int32.max, 0, -1]).width == 5)
        #expect(Array(PackedColumn<Int32>([Int32.min, Int32.max, 0, -1])) == [Int32.min, Int32.max, 0, -1])
    }

    @Test func emptyAndAllZeroColumns() {
        #expect(PackedColumn<Int64>([]).isEmpty)
        let zeros = PackedColumn<Int32>([0, 0, 0])
        #expect(zeros.width == 1 && Array(zeros) == [0, 0, 0])
    }
}
