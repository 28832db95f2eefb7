/// A filter by an area whose shape the core does not know — an administrative region's polygons from
/// the region index (NearbyRegions) — given to the core as a box and a membership test.
///
/// Two areas are the same filter when they have the same codes: the codes are what `--region` renders
/// to and what a cursor's fingerprint covers.
public struct AreaFilter: Sendable, Hashable {
    /// The codes of the regions it covers, sorted (e.g. `["11110"]`).
    public let codes: [String]
    /// A box holding the whole area: the engines search their tree with it before `contains`.
    public let box: GeoBox
    private let test: @Sendable (Double, Double) -> Bool

    public init(codes: [String], box: GeoBox, contains: @escaping @Sendable (_ lat: Double, _ lon: Double) -> Bool) {
        self.codes = codes.sorted()
        self.box = box
        test = contains
    }

    @inline(__always) public func contains(lat: Double, lon: Double) -> Bool { test(lat, lon) }

    public static func == (a: AreaFilter, b: AreaFilter) -> Bool { a.codes == b.codes }
    public func hash(into h: inout Hasher) { h.combine(codes) }
}

/// Turns `--region` text (a name such as `종로구` or `서울 종로구`, or a code) into an area; an unknown or
/// ambiguous name is a `RequestError` listing the candidates. NearbyKit gives the region index's.
public protocol AreaResolver: Sendable {
    func area(_ text: String) throws(RequestError) -> AreaFilter
    /// The union of several areas (`--region 종로구 --region 중구`).
    func union(_ areas: [AreaFilter]) -> AreaFilter
    /// A legal-dong code (`--ldong`, 2 or 5 digits) with every other code of the same region, old
    /// and new (`51` → `51`, `42`); an unknown code is a `RequestError`.
    func legalDongCodes(_ code: String) throws(RequestError) -> Set<String>
}

extension AreaResolver {
    /// Without a change table: the code alone.
    public func legalDongCodes(_ code: String) throws(RequestError) -> Set<String> { [code] }
}
