import Foundation
import NearbyCore
import NearbyRegions

/// `--region` for the request parser: names and codes resolved on the region index
/// (`data/kr_regions.bin`), loaded on first use (a few hundred milliseconds), once per process.
public final class RegionAreas: AreaResolver, @unchecked Sendable {
    /// The index from the default data folder (`RegionData`).
    /// `--ldong` is read from `data/ldong-codes.tsv` beside it when there is one (`LegalDongCodes`).
    public static let shared = RegionAreas(
        { try RegionData.index() }, legalDongCodes: { try RegionData.legalDongCodes() })

    private let load: () throws -> RegionIndex
    private let loadCodes: (() throws -> LegalDongCodes?)?
    private let lock = NSLock()
    private var loaded: Result<RegionIndex, Error>?
    private var loadedCodes: LegalDongCodes??

    /// Regions from `load`, on first use; `--ldong` codes from `legalDongCodes` (nil, or a table that
    /// lacks a code: from the index).
    public init(
        _ load: @escaping () throws -> RegionIndex, legalDongCodes: (() throws -> LegalDongCodes?)? = nil
    ) {
        self.load = load
        loadCodes = legalDongCodes
    }

    public func index() throws -> RegionIndex {
        lock.lock()
        defer { lock.unlock() }
        if loaded == nil { loaded = Result { try load() } }
        return try loaded!.get()
    }

    /// The `--ldong` table, read on first use (nil: none, or it cannot be read).
    private func codeTable() -> LegalDongCodes? {
        lock.lock()
        defer { lock.unlock() }
        if loadedCodes == nil { loadedCodes = .some((try? loadCodes?()) ?? nil) }
        return loadedCodes!
    }

    public func area(_ text: String) throws(RequestError) -> AreaFilter {
        let index: RegionIndex
        do { index = try self.index() } catch {
            throw RequestError(parameter: "region", reason: "the region index cannot be loaded: \(error)")
        }
        switch index.resolve(text) {
        case .found(let regions): return Self.area(regions, index)
        case .ambiguous(let regions):
            let list = regions.prefix(12).map(\.description).joined(separator: "; ")
            throw RequestError(
                parameter: "region",
                reason:
                    "\(MessageText.quoted(text)) is ambiguous: \(regions.count) regions, e.g. \(list); give the 시도 too (서울 중구) or a code"
            )
        case .notFound:
            throw RequestError(
                parameter: "region",
                reason: "\(MessageText.quoted(text)) is no region known here (a 시도, 시군구, 읍면동 or 리 name, or its code)")
        }
    }

    public func union(_ areas: [AreaFilter]) -> AreaFilter {
        let box = areas.map(\.box).reduce(areas[0].box) {
            GeoBox(
                minLon: min($0.minLon, $1.minLon), minLat: min($0.minLat, $1.minLat),
                maxLon: max($0.maxLon, $1.maxLon), maxLat: max($0.maxLat, $1.maxLat))
        }
        return AreaFilter(codes: Array(Set(areas.flatMap(\.codes))), box: box) { lat, lon in
            areas.contains { $0.contains(lat: lat, lon: lon) }
        }
    }

    /// `--ldong`: the region of a legal-dong code (old or new, `RegionIndex.resolve`) and all its codes.
    public func legalDongCodes(_ code: String) throws(RequestError) -> Set<String> {
        if let codes = codeTable()?.codes[code] { return codes }
        let index: RegionIndex
        do { index = try self.index() } catch {
            throw RequestError(parameter: "ldong", reason: "the region index cannot be loaded: \(error)")
        }
        guard let codes = index.legalDongCodes(code) else {
            throw RequestError(
                parameter: "ldong",
                reason:
                    "\(MessageText.quoted(code)) is no 시도 or 시군구 code known here (data/kr_regions.bin and data/region-code-changes.tsv)"
            )
        }
        return codes
    }

    private static func area(_ regions: [Region], _ index: RegionIndex) -> AreaFilter {
        let boxes = regions.map { index.boundingBox($0) }
        let box = GeoBox(
            minLon: boxes.map(\.minLon).min()!, minLat: boxes.map(\.minLat).min()!,
            maxLon: boxes.map(\.maxLon).max()!, maxLat: boxes.map(\.maxLat).max()!)
        return AreaFilter(codes: regions.map(\.code), box: box) { lat, lon in
            index.contains(any: regions, lat: lat, lon: lon)
        }
    }
}
