import Foundation
import NearbyCore
import NearbyRegions

/// `--region` for the request parser: names and codes resolved on the region index
/// (`data/kr_regions.bin`), loaded on first use (a few hundred milliseconds), once per process.
public final class RegionAreas: AreaResolver, @unchecked Sendable {
    /// The index from the default data folder (`RegionData`).
    public static let shared = RegionAreas { try RegionData.index() }

    private let load: () throws -> RegionIndex
    private let lock = NSLock()
    private var loaded: Result<RegionIndex, Error>?

    public init(_ load: @escaping () throws -> RegionIndex) { self.load = load }

    public func index() throws -> RegionIndex {
        lock.lock()
        defer { lock.unlock() }
        if loaded == nil { loaded = Result { try load() } }
        return try loaded!.get()
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
        let index: RegionIndex
        do { index = try self.index() } catch {
            throw RequestError(parameter: "ldong", reason: "the region index cannot be loaded: \(error)")
        }
        guard case .found(let regions) = index.resolve(code), regions.allSatisfy({ $0.level <= .sigungu }) else {
            throw RequestError(
                parameter: "ldong",
                reason:
                    "\(MessageText.quoted(code)) is no 시도 or 시군구 code known here (data/kr_regions.bin and data/region-code-changes.tsv)"
            )
        }
        return Set([code] + regions.flatMap { [$0.code] + $0.formerCodes })
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
