import Foundation
import NearbyKit

/// Text lines for `nearby where` and JSON and text for `nearby region` (`nearby where`'s JSON
/// lines are `RegionJSON`'s, shared with the server's `/v1/where`).
enum RegionOutput {
    /// One `nearby where --format text` line.
    static func whereText(lat: Double, lon: Double, _ location: RegionLocation) -> String {
        switch location {
        case .inside(let path):
            return "\(lat) \(lon) \(path.deepest.fullName) (\(path.deepest.code))"
        case .unknown(let nearest, let distance):
            let away = distance < 10_000 ? "\(Int(distance.rounded())) m" : String(format: "%.1f km", distance / 1000)
            return
                "\(lat) \(lon) unknown region; nearest: \(nearest.deepest.fullName) (\(nearest.deepest.code)), \(away) away"
        }
    }

    /// A region as one JSON object: code, names, level, former codes, parts and bounding box.
    static func regionJSON(_ region: Region, index: RegionIndex) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: "{\"code\":".utf8)
        JSONWriter.appendString(region.code, to: &out)
        out.append(contentsOf: ",\"name\":".utf8)
        JSONWriter.appendString(region.name, to: &out)
        out.append(contentsOf: ",\"fullName\":".utf8)
        JSONWriter.appendString(region.fullName, to: &out)
        out.append(contentsOf: ",\"level\":\"\(region.level)\",\"formerCodes\":[".utf8)
        for (i, code) in region.formerCodes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(code, to: &out)
        }
        out.append(contentsOf: "],\"parts\":[".utf8)
        for (i, part) in region.parts.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(index.regions[part].code, to: &out)
        }
        let box = index.boundingBox(region)
        out.append(contentsOf: "],\"bbox\":[".utf8)
        for (i, value) in [box.minLon, box.minLat, box.maxLon, box.maxLat].enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONNumber.append(value, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
