import Foundation
import Testing

@testable import NearbyCore

/// `RowOrder.sortByDistance` (the bucket sort of a whole answer in distance order) against the
/// comparison sort by (distance, id rank), on lists made to hit every branch: short lists, buckets
/// of one, crowded buckets (sorted in place), exact ties broken by id rank, zeros, tiny and huge
/// distances, and the fallbacks for infinite ones.
@Suite struct RowOrderTests {
    /// A table of `n` places in id order, so a row's id rank is the row.
    private func table(_ n: Int) -> PlaceTable {
        PlaceTable((0..<n).map { Place(id: String(format: "%07d", $0), title: "t", lat: 37, lon: 127, category: 1) })
    }

    private func expectBucketSortEqualsComparison(_ rows: [Row], _ table: PlaceTable, _ label: String) {
        let order = RowOrder(PlaceOrder([SortKey(.distance)]), table: table)
        var bucketed = rows
        RowOrder.sortByDistance(&bucketed, table: table)
        let compared = rows.sorted(by: order.less)
        #expect(bucketed == compared, "\(label), n = \(rows.count)")
    }

    @Test func equalsTheComparisonSort() {
        var g = SeededGenerator(seed: 10)
        let places = 20_000
        let t = table(places)
        // Below 64 rows an insertion sort in place, from 64 the buckets: every length around both.
        let sizes = Array(0...3) + [19, 20, 21, 31, 32, 33, 62, 63, 64, 65, 100, 1_000, 5_000, 20_000]
        let kinds: [(String, (inout SeededGenerator) -> Double)] = [
            ("uniform in a disc", { 20_000 * Double.random(in: 0...1, using: &$0).squareRoot() }),
            ("one dense cluster", { 15_000 + Double.random(in: -5...5, using: &$0) }),
            ("exact ties", { [0, 0.5, 123.25, 19_999.75].randomElement(using: &$0)! }),
            ("all zero", { _ in 0 }),
            ("tiny", { 1e-150 * Double.random(in: 0...1, using: &$0) }),
            ("tinier than the square root of the least normal", { 1e-300 * Double.random(in: 0...1, using: &$0) }),
            ("huge", { 1e200 * Double.random(in: 0...1, using: &$0) }),
            (
                "with infinity",
                { Double.random(in: 0...1, using: &$0) < 0.1 ? .infinity : Double.random(in: 0...500, using: &$0) }
            ),
            ("negative", { Double.random(in: -1...1, using: &$0) }),
            ("bit patterns", { Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &$0)) }),
        ]
        for (label, distance) in kinds {
            for n in sizes {
                // Items drawn with repeats across rows would tie on (distance, rank): rows are distinct places.
                var items = Array(0..<places)
                items.shuffle(using: &g)
                let rows = (0..<n).map { Row(item: items[$0], dist: distance(&g)) }
                expectBucketSortEqualsComparison(rows, t, label)
            }
        }
    }

    /// The plan's whole answer in distance order (`selectTop` with m ≥ n) goes through the bucket sort.
    @Test func wholeAnswerOfSelectTopIsSorted() {
        var g = SeededGenerator(seed: 11)
        let t = table(3_000)
        let order = RowOrder(PlaceOrder([SortKey(.distance)]), table: t)
        var rows = (0..<3_000).shuffled(using: &g).map {
            Row(item: $0, dist: Double(Int.random(in: 0...400, using: &g)) * 2.5)
        }
        let expected = rows.sorted(by: order.less)
        order.selectTop(rows.count, in: &rows)
        #expect(rows == expected)
    }
}
