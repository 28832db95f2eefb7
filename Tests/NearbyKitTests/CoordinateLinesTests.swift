import Foundation
import NearbyKit
import Testing

/// The coordinate lines `nearby distance` and `nearby where` share, and the distance lines.
@Suite struct CoordinateLinesTests {
    let pair = DistanceLines.names

    func reason(_ line: String, _ names: [String]) -> String? {
        do {
            _ = try CoordinateLine(line: line, names: names)
            return nil
        } catch { return error.message }
    }

    @Test func textAndJSONReadTheSame() throws {
        let a = try #require(try CoordinateLine(line: "37.5665 126.978,35.1796\t129.0756", names: pair))
        let b = try #require(
            try CoordinateLine(line: #"{"lat2":35.1796,"lon2":129.0756,"lat1":37.5665,"lon1":126.978}"#, names: pair))
        #expect(a.values == [37.5665, 126.978, 35.1796, 129.0756] && a.values == b.values)
        #expect(try CoordinateLine(line: "   ", names: pair) == nil)
        #expect(try CoordinateLine(line: "# a comment", names: pair) == nil)
    }

    @Test func badLinesSayWhichFieldAndQuoteWhatTheyEcho() {
        #expect(reason("1 2 3", pair) == "expected 4 numbers (lat1 lon1 lat2 lon2), found 3 fields")
        #expect(reason("91 0", ["lat", "lon"]) == "lat 91.0 is out of range [-90, 90]")
        #expect(reason("0 541", ["lat", "lon"]) == "lon 541.0 is out of range [-540, 540]")
        #expect(reason("nan 0", ["lat", "lon"]) == #"lat "nan" is not a number"#)
        #expect(reason("0x25 0", ["lat", "lon"]) == #"lat "0x25" is not a number"#)
        #expect(reason("\u{1B}[31m 0", ["lat", "lon"]) == #"lat "\u001b[31m" is not a number"#)
        #expect(reason(#"{"lat":1}"#, ["lat", "lon"]) == #"field "lon" is missing"#)
        #expect(reason(#"{"lat":"1","lon":2}"#, ["lat", "lon"]) == #"field "lat" is not a number"#)
        #expect(reason("{", ["lat", "lon"]) == "not a JSON object")
    }

    @Test func distanceLinesUnderEveryModel() throws {
        let p = try CoordinateLine(values: [37.5665, 126.978, 35.1796, 129.0756], names: pair)
        var haversine = DistanceLines(model: .haversine, all: false, format: .text)
        let d = try #require(Double(try haversine.line(p)))
        #expect(abs(d - 325_000) < 3_000)  // Seoul–Busan, about 325 km
        var all = DistanceLines(model: .haversine, all: true, format: .jsonl)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try all.line(p).utf8)) as? [String: Any])
        #expect(object["haversine"] as? Double == d)
        #expect(object["crs"] as? String == "EPSG:5179")
        let geodesic = try #require(object["geodesic"] as? Double)
        let projected = try #require(object["projected"] as? Double)
        #expect(abs(geodesic - d) < 0.005 * d && abs(projected - d) < 0.005 * d)
        // A point PROJ cannot project is this line's error, not the command's.
        var outside = DistanceLines(model: .projected(.korea2000), all: false, format: .text)
        #expect(throws: CoordinateLine.Invalid.self) {
            try outside.line(try CoordinateLine(values: [37.5, 127, 0, 37.5], names: pair))
        }
    }
}
