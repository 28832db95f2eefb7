import NearbyKit
import Foundation

/// JSON and text lines for `nearby where` and `nearby region`.
enum RegionOutput {
    /// `{"code":"11110","name":"종로구"}`, or null.
    static func append(_ region: Region?, to out: inout [UInt8]) {
        guard let region else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(contentsOf: "{\"code\":".utf8)
        JSONWriter.appendString(region.code, to: &out)
        out.append(contentsOf: ",\"name\":".utf8)
        JSONWriter.appendString(region.name, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `"region":"서울특별시 종로구 세종로","code":"11110119","sido":{…},"sigungu":{…},"emd":{…},"ri":null`
    static func append(_ path: RegionPath, to out: inout [UInt8]) {
        out.append(contentsOf: "\"region\":".utf8)
        JSONWriter.appendString(path.deepest.fullName, to: &out)
        out.append(contentsOf: ",\"code\":".utf8)
        JSONWriter.appendString(path.deepest.code, to: &out)
        for (key, region) in [("sido", path.sido), ("sigungu", path.sigungu), ("emd", path.emd), ("ri", path.ri)] {
            out.append(contentsOf: ",\"\(key)\":".utf8)
            append(region, to: &out)
        }
    }

    /// One `nearby where` JSON line (without the newline).
    static func whereJSON(lat: Double, lon: Double, _ location: RegionLocation) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: "{\"lat\":".utf8)
        JSONNumber.append(lat, to: &out)
        out.append(contentsOf: ",\"lon\":".utf8)
        JSONNumber.append(lon, to: &out)
        out.append(UInt8(ascii: ","))
        switch location {
        case .inside(let path):
            append(path, to: &out)
        case .unknown(let nearest, let distance):
            out.append(contentsOf: "\"region\":\"unknown\",\"nearest\":{".utf8)
            append(nearest, to: &out)
            out.append(contentsOf: "},\"distance_m\":".utf8)
            JSONNumber.append((distance * 10).rounded() / 10, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// One `nearby where --format text` line.
    static func whereText(lat: Double, lon: Double, _ location: RegionLocation) -> String {
        switch location {
        case .inside(let path):
            return "\(lat) \(lon) \(path.deepest.fullName) (\(path.deepest.code))"
        case .unknown(let nearest, let distance):
            let away = distance < 10_000 ? "\(Int(distance.rounded())) m" : String(format: "%.1f km", distance / 1000)
            return "\(lat) \(lon) unknown region; nearest: \(nearest.deepest.fullName) (\(nearest.deepest.code)), \(away) away"
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
