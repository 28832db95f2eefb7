/// A substring index over the folded titles (`FoldedTitles`): for each key, the rows whose title holds
/// it, ascending. So a keyword's candidates are one posting list (its rarest key's), not every title,
/// and a filter of a keyword and an area reads the list and tests the area on each row: the matches and
/// the exact total without a scan.
///
/// The keys are 1-grams of the folded UTF-16 units, with Hangul initial-consonant (초성) search kept:
/// - a title's syllable gives two keys, the unit itself and the key of its initial consonant;
/// - a title's lone initial consonant (compatibility jamo ㄱ … ㅎ) gives the key of that consonant;
/// - any other unit gives the unit itself.
/// A keyword's lone initial consonant asks the consonant's key, its other units themselves
/// (`key(ofKeywordUnit:)`). Every title the matcher accepts (`KeywordMatcher`: each keyword unit equals
/// the title's, or is an initial consonant the title's syllable begins with) then holds every key of
/// the keyword, so each posting list is a superset of the matches; the engine tests each candidate with
/// the matcher. For a keyword of one unit the list is exactly its matches (`isExact`).
///
/// Cost: 4 B a posting; a title gives one posting per distinct key (benchmark workload titles: 14.5, 58 B a
/// place with the key table). Stored in the index snapshot (`KWKY`, `KWST`, `KWRW`), else built on a
/// table's second keyword query.
struct TitlePostings: Sendable {
    /// The keys, ascending; key i's rows are `rows[starts[i] ..< starts[i + 1]]`.
    let keys: Column<UInt32>
    let starts: Column<UInt32>
    /// Rows, ascending within each key.
    let rows: Column<UInt32>

    static let keysTag = "KWKY"
    static let startsTag = "KWST"
    static let rowsTag = "KWRW"

    /// Keys of initial consonants: `initialBase` + the consonant's index (0 ㄱ … 18 ㅎ), past every unit.
    static let initialBase: UInt32 = 0x1_0000
    static let keySpace = Int(initialBase) + Hangul.initialCount

    init(keys: Column<UInt32>, starts: Column<UInt32>, rows: Column<UInt32>) {
        self.keys = keys
        self.starts = starts
        self.rows = rows
    }

    /// The postings of `titles` (row i: title i).
    init(_ titles: FoldedTitles) {
        let built = Self.build(count: titles.count) { row, add in
            let start = row == 0 ? 0 : Int(titles.ends[row - 1])
            let end = Int(titles.ends[row])
            if start <= end && end <= titles.units.count {
                titles.units.withUnsafeBufferPointer(in: start..<end) { for u in $0 { Self.keys(ofTitleUnit: u, add) } }
            }
        }
        self.init(keys: Column(built.keys), starts: Column(built.starts), rows: Column(built.rows))
    }

    /// The sections' values for `count` rows whose units `units(row, add)` hands to `add` one by one:
    /// two passes (count, then fill), so rows come out ascending in each key with no sort.
    static func build(count n: Int, units: (Int, (UInt32) -> Void) -> Void) -> (
        keys: [UInt32], starts: [UInt32], rows: [UInt32]
    ) {
        var sizes = [UInt32](repeating: 0, count: keySpace)
        // The last row that gave each key: a title's repeated key is one posting.
        var last = [Int32](repeating: -1, count: keySpace)
        for row in 0..<n {
            units(row) { k in
                if last[Int(k)] != Int32(row) {
                    last[Int(k)] = Int32(row)
                    sizes[Int(k)] += 1
                }
            }
        }
        var keys: [UInt32] = []
        var starts: [UInt32] = [0]
        var next = [UInt32](repeating: 0, count: keySpace)
        var total: UInt32 = 0
        for k in 0..<keySpace where sizes[k] > 0 {
            keys.append(UInt32(k))
            next[k] = total
            total += sizes[k]
            starts.append(total)
        }
        var rows = [UInt32](repeating: 0, count: Int(total))
        for i in last.indices { last[i] = -1 }
        for row in 0..<n {
            units(row) { k in
                if last[Int(k)] != Int32(row) {
                    last[Int(k)] = Int32(row)
                    rows[Int(next[Int(k)])] = UInt32(row)
                    next[Int(k)] += 1
                }
            }
        }
        return (keys, starts, rows)
    }

    /// The keys a title's folded unit gives (the type's rules).
    @inline(__always) static func keys(ofTitleUnit u: UInt16, _ add: (UInt32) -> Void) {
        let v = UInt32(u)
        if Hangul.isSyllable(v) {
            add(v)
            add(initialBase + Hangul.initialIndex(ofSyllable: v))
        } else if let l = Hangul.initialIndex(ofJamo: v) {
            add(initialBase + l)
        } else {
            add(v)
        }
    }

    /// The key a keyword's folded unit asks.
    static func key(ofKeywordUnit u: UInt16) -> UInt32 {
        Hangul.initialIndex(ofJamo: UInt32(u)).map { initialBase + $0 } ?? UInt32(u)
    }

    /// Positions in `rows` of `key`'s postings (empty when no title holds it).
    func postings(of key: UInt32) -> Range<Int> {
        var lo = 0
        var hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        guard lo < keys.count, keys[lo] == key, lo + 1 < starts.count else { return 0..<0 }
        let s = Int(starts[lo])
        let e = Int(starts[lo + 1])
        // A damaged snapshot could hold starts out of order or past the rows: such a key has none.
        return s <= e && e <= rows.count ? s..<e : 0..<0
    }

    /// The shortest posting list among the keyword's keys: positions in `rows` of a superset of the
    /// rows whose title the keyword matches (nil for an empty keyword, which matches every title).
    func candidates(_ keyword: KeywordMatcher) -> Range<Int>? {
        guard !keyword.isEmpty else { return nil }
        var best: Range<Int>?
        for u in Set(keyword.units) {
            let p = postings(of: Self.key(ofKeywordUnit: u))
            if best == nil || p.count < best!.count { best = p }
        }
        return best
    }

    /// Whether the candidates are exactly the keyword's matches (a keyword of one unit).
    static func isExact(_ keyword: KeywordMatcher) -> Bool { keyword.units.count == 1 }

    /// Whether every row named is a row of a table of `count` (checked once for a mapped table).
    func holdsOnlyRows(_ count: Int) -> Bool {
        starts.count == keys.count + 1 && rows.allSatisfy { Int($0) < count }
    }

    var byteCount: Int { keys.byteCount + starts.byteCount + rows.byteCount }
}
