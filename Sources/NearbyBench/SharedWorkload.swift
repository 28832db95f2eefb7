import Foundation
import NearbyCore

/// The benchmark workload shared with other engines, byte for byte what
/// `python3 make_dataset.py N_PLACES N_QUERIES PREFIX SEED` writes (../shared/workload, CPython 3.11
/// on glibc), rebuilt from this repository: same towns (`data/kr_points.tsv`), same random numbers
/// (`PythonRandom`), same arithmetic in the same order, same formatting.
///
/// Files (UTF-8, tab-separated, `\n` line ends, a header line first):
/// - places: `id lat lon category title created modified areacode sigungucode`. Ids 1...N. A town is
///   drawn with weight 1/(area_km2 + 0.3), then a point uniform in the disc of radius √(area/π) km
///   around it (111.32 km per degree of latitude, 111.32·cos(lat) per degree of longitude), `lat` and
///   `lon` with 7 decimals. `category` is a TourAPI content type (39 30 %, 12 20 %, 38 12 %, 32 10 %,
///   14 10 %, 28 8 %, 15 6 %, 25 4 %); `title` is `NAME WORD K`: the village's name (else the town's),
///   the category's word and K in 1...999. `created`/`modified` are `yyyyMMddHHmmss` on a calendar
///   of 30-day months and 360-day years from 2004: created in the first 21 years, modified between
///   created and year 22. `areacode`/`sigungucode` are the first 2 and 5 digits of the town's code
///   (legal-dong codes, the shared format's convention; Nearby's own `areacode` is TourAPI's, `TourAreaCode`).
/// - queries: `qid lat lon radius_m limit`: a town drawn as above, its point moved by normal noise of
///   0.01° on each axis (6 decimals), radius 500, 1000, 2000, 5000 or 20000 m (3:4:4:2:1), limit 0
///   (all), 30 or 100.
///
/// Python draws every place's town first (`choices(…, k=N)`), then the rest of each place in turn,
/// then the queries. Here one generator copy draws the towns while a second, advanced past those N
/// draws, draws the rest, so places stream out in constant memory.
public enum SharedWorkload {
    public static let defaultSeed = 42
    public static let placesHeader = "id\tlat\tlon\tcategory\ttitle\tcreated\tmodified\tareacode\tsigungucode\n"
    public static let queriesHeader = "qid\tlat\tlon\tradius_m\tlimit\n"

    /// `cats` of make_dataset.py: 100 entries, so `choice` gives the percentages above.
    static let categories: [Int] = [(39, 30), (12, 20), (38, 12), (32, 10), (14, 10), (28, 8), (15, 6), (25, 4)]
        .flatMap { Array(repeating: $0.0, count: $0.1) }
    static let categoryWords: [Int: String] = [
        12: "관광지", 14: "문화시설", 15: "축제", 25: "여행코스", 28: "레포츠", 32: "숙박", 38: "쇼핑", 39: "음식점",
    ]
    static let radii = [500, 500, 500, 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 5000, 5000, 20000]
    static let limits = [0, 30, 100]
    static let kmPerDegree = 111.32
    static let secondsPerDay = 86_400, secondsPerMonth = 30 * 86_400, secondsPerYear = 360 * 86_400

    /// What each line repeats of its town, computed once.
    struct Town {
        var lat, lon: Double
        /// Radius in km of a disc with the town's area.
        var radiusKm: Double
        /// `111.32 * cos(radians(lat))`.
        var kmPerDegreeLon: Double
        var name, areacode, sigungucode: [UInt8]
    }

    /// Generates the places file then the queries file, each header included, handing their bytes to
    /// `places` and `queries` in chunks of about `chunkSize` bytes (whole lines), in file order.
    /// `towns` is `data/kr_points.tsv` as `KoreanTowns.load` reads it, in file order.
    public static func generate(
        towns: [KoreanTown], placeCount: Int, queryCount: Int, seed: Int = defaultSeed, chunkSize: Int = 1 << 20,
        places: ([UInt8]) throws -> Void, queries: ([UInt8]) throws -> Void
    ) rethrows {
        precondition(!towns.isEmpty && placeCount >= 0 && queryCount >= 0)
        let table = towns.map { t in
            Town(
                lat: t.lat, lon: t.lon, radiusKm: (t.areaKm2 / Double.pi).squareRoot(),
                kmPerDegreeLon: kmPerDegree * cos(t.lat * (Double.pi / 180.0)),
                name: Array((t.ri.isEmpty ? t.emd : t.ri).utf8),
                areacode: Array(t.code.utf8.prefix(2)), sigungucode: Array(t.code.utf8.prefix(5)))
        }
        let cumulative = PythonRandom.cumulativeWeights(towns.map { 1.0 / ($0.areaKm2 + 0.3) })
        let words = categoryWords.mapValues { Array(" \($0) ".utf8) }

        var townDraws = PythonRandom(seed: seed)
        var rng = townDraws
        for _ in 0..<placeCount { _ = rng.random() }  // skip the towns' draws

        var out = LineBuffer(capacity: chunkSize + 4096)
        out.append(placesHeader)
        for i in 0..<placeCount {
            let t = table[townDraws.weightedIndex(cumulativeWeights: cumulative)]
            let d = t.radiusKm * rng.random().squareRoot()
            let a = rng.random() * 2 * Double.pi
            let lat = t.lat + d * cos(a) / kmPerDegree
            let lon = t.lon + d * sin(a) / t.kmPerDegreeLon
            let category = rng.choice(categories)
            let created = rng.uniform(0, Double(21 * secondsPerYear))
            let modified = rng.uniform(created, Double(22 * secondsPerYear))
            out.append(i + 1)
            out.tab()
            out.append(lat, decimals: 7)
            out.tab()
            out.append(lon, decimals: 7)
            out.tab()
            out.append(category)
            out.tab()
            out.append(t.name)
            out.append(words[category]!)
            out.append(rng.randrange(1, 1000))
            out.tab()
            out.appendStamp(created)
            out.tab()
            out.appendStamp(modified)
            out.tab()
            out.append(t.areacode)
            out.tab()
            out.append(t.sigungucode)
            out.newline()
            if out.bytes.count >= chunkSize { try out.flush(to: places) }
        }
        try out.flush(to: places)

        out.append(queriesHeader)
        for q in 0..<queryCount {
            let t = table[rng.weightedIndex(cumulativeWeights: cumulative)]
            let lat = t.lat + rng.gauss(mu: 0, sigma: 0.01)
            let lon = t.lon + rng.gauss(mu: 0, sigma: 0.01)
            out.append(q + 1)
            out.tab()
            out.append(lat, decimals: 6)
            out.tab()
            out.append(lon, decimals: 6)
            out.tab()
            out.append(rng.choice(radii))
            out.tab()
            out.append(rng.choice(limits))
            out.newline()
            if out.bytes.count >= chunkSize { try out.flush(to: queries) }
        }
        try out.flush(to: queries)
    }

    /// Bytes of lines being built, formatted as Python's f-strings format them.
    struct LineBuffer {
        var bytes: [UInt8] = []
        /// Room for printf to write any finite Double with up to 7 decimals (at most 309 integer digits).
        var scratch = [CChar](repeating: 0, count: 330)

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func flush(to sink: ([UInt8]) throws -> Void) rethrows {
            if !bytes.isEmpty { try sink(bytes) }
            bytes.removeAll(keepingCapacity: true)
        }

        mutating func tab() { bytes.append(0x09) }
        mutating func newline() { bytes.append(0x0A) }
        mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
        mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }

        /// `f"{n:0{width}d}"` for n ≥ 0 (`f"{n}"` with the default width).
        mutating func append(_ n: Int, width: Int = 1) {
            precondition(n >= 0)
            var digits = 1
            var v = n
            while v >= 10 {
                v /= 10
                digits += 1
            }
            let count = max(width, digits)
            bytes.append(contentsOf: repeatElement(0x30, count: count))
            var i = bytes.count
            v = n
            while v > 0 {
                i -= 1
                bytes[i] = 0x30 + UInt8(v % 10)
                v /= 10
            }
        }

        static let powersOfTen = [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000]

        /// `f"{x:.{decimals}f}"`, 0 ≤ decimals ≤ 7: x's exact binary value rounded to `decimals` places,
        /// ties to even, as Python's float formatting (David Gay's dtoa, mode 3) and C's printf do.
        ///
        /// While |x|·10^d < 2^52 (every coordinate), without printf: hi = fl(|x|·10^d) and
        /// lo = fma(|x|, 10^d, −hi) are the exact product as an unevaluated sum (TwoProduct: T. J. Dekker,
        /// "A floating-point technique for extending the available precision", Numer. Math. 18, 1971),
        /// |lo| ≤ ulp(hi)/2 ≤ 1/4 and hi's fraction a multiple of ulp(hi), so hi's fraction against ½, and
        /// on a tie the sign of lo, round the exact product. Larger or non-finite values use printf.
        mutating func append(_ x: Double, decimals d: Int) {
            precondition((0...7).contains(d))
            let scale = Self.powersOfTen[d]
            let hi = x.magnitude * Double(scale)
            guard hi < 0x1p52 else { return appendPrintf(x, decimals: d) }
            let lo = (-hi).addingProduct(x.magnitude, Double(scale))
            let whole = hi.rounded(.down)
            let fraction = hi - whole
            var q = Int(whole)
            if fraction > 0.5 || (fraction == 0.5 && (lo > 0 || (lo == 0 && q & 1 == 1))) { q += 1 }
            if x.sign == .minus { bytes.append(0x2D) }
            append(q / scale)
            if d > 0 {
                bytes.append(0x2E)
                append(q % scale, width: d)
            }
        }

        /// `f"{x:.{decimals}f}"` by C's `%.*f`, which rounds the exact binary value, ties to even.
        mutating func appendPrintf(_ x: Double, decimals: Int) {
            let count = Int(withVaList([Int32(decimals), x]) { vsnprintf(&scratch, scratch.count, "%.*f", $0) })
            precondition(count < scratch.count)
            for i in 0..<count { bytes.append(UInt8(bitPattern: scratch[i])) }
        }

        /// make_dataset.py's `stamp(t)`: seconds since 2004-01-01 on a calendar of 360-day years and
        /// 30-day months, as `yyyyMMddHHmmss`.
        mutating func appendStamp(_ t: Double) {
            var rem = Int(t)
            let y = rem / secondsPerYear
            rem %= secondsPerYear
            let mo = rem / secondsPerMonth
            rem %= secondsPerMonth
            let d = rem / secondsPerDay
            rem %= secondsPerDay
            let h = rem / 3600
            rem %= 3600
            append(2004 + y, width: 4)
            append(mo + 1, width: 2)
            append(d + 1, width: 2)
            append(h, width: 2)
            append(rem / 60, width: 2)
            append(rem % 60, width: 2)
        }
    }
}
