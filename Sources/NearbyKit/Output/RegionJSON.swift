import NearbyCore
import NearbyRegions

/// The JSON of `nearby where` and `GET /v1/where`: one object per point, written in one place so
/// the CLI and the server answer alike.
public enum RegionJSON {
    /// `{"code":"11110","name":"종로구"}`, or null.
    public static func append(_ region: Region?, to out: inout [UInt8]) {
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
    public static func append(_ path: RegionPath, to out: inout [UInt8]) {
        out.append(contentsOf: "\"region\":".utf8)
        JSONWriter.appendString(path.deepest.fullName, to: &out)
        out.append(contentsOf: ",\"code\":".utf8)
        JSONWriter.appendString(path.deepest.code, to: &out)
        for (key, region) in [("sido", path.sido), ("sigungu", path.sigungu), ("emd", path.emd), ("ri", path.ri)] {
            out.append(contentsOf: ",\"\(key)\":".utf8)
            append(region, to: &out)
        }
    }

    /// One `nearby where` JSON line, also `/v1/where`'s answer (without the newline).
    public static func whereLine(lat: Double, lon: Double, _ location: RegionLocation) -> [UInt8] {
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
}
