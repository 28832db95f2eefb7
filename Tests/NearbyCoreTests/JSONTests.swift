import Foundation
import Testing

@testable import NearbyCore

private func line(
    _ p: Place, leading: [(key: String, value: JSONScalar)] = [], distance: Double? = nil,
    fields: PlaceJSON.Selection = .all
) -> String {
    var out: [UInt8] = []
    PlaceJSON.append(p, leading: leading, distance: distance, fields: fields, to: &out)
    return String(decoding: out, as: UTF8.self)
}

private func decode(_ s: String) throws(PlaceJSON.DecodeError) -> Place { try PlaceJSON.decode(Array(s.utf8)) }

/// A place with every field set, text full of characters JSON must escape or carry through.
private let everything = Place(
    id: "id \"quoted\" \\ back", title: "경복궁 \u{1}\u{1f}\n\t\r\u{8}\u{c} 🎉 é", lat: 0.1 + 0.2, lon: -126.97800000000001,
    category: -7, created: "20240101000000", modified: "20241231235959", areacode: "1", sigungucode: "23",
    addr: "서울특별시 종로구 사직로 161", tel: "02-3700-3900", image: "http://tong.visitkorea.or.kr/a.jpg",
    cat1: "A02", cat2: "A0201", cat3: "A02010100", eventStart: "20240501", eventEnd: "20240505",
    accessibility: ["elevator", "wheelchair"], lDongRegnCd: "11", lDongSignguCd: "110",
    lclsSystm1: "HS", lclsSystm2: "HS01", lclsSystm3: "HS010100")

@Test func placeRoundTripsEveryField() throws {
    #expect(try decode(line(everything)) == everything)
}

@Test(arguments: [
    0.30000000000000004, Double.leastNonzeroMagnitude, -0.0, 1e-7, 37.5665, 89.99999999999999, 2.2250738585072014e-308,
    1.7976931348623157e308, 126.97800000000001, 123_456_789_012_345_680, 0.1, -90, 180,
])
func doublesRoundTripExactly(_ v: Double) throws {
    var p = everything
    p.lat = v
    p.lon = -v
    let back = try decode(line(p))
    #expect(back.lat.bitPattern == v.bitPattern)
    #expect(back.lon.bitPattern == (-v).bitPattern)
}

@Test func numberParserMatchesStrtodOnRandomDoubles() {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
        let v = Double(bitPattern: rng.next() & ~(0x7FF << 52) | (UInt64.random(in: 900...1150, using: &rng) << 52))
        for text in [v.description, String(format: "%.7f", v), String(format: "%.15e", v)] {
            let parsed = Array(text.utf8).withUnsafeBytes(JSONNumber.parseDouble)
            #expect(parsed == strtod(text, nil), "\(text)")
        }
    }
}

/// `JSONNumber.append` writes `description`'s text byte for byte (it takes it from `write(to:)`
/// without a `String`): every finite bit pattern class, distances of every size, and the edge values.
@Test func numberTextIsDescription() {
    var g = SeededGenerator(seed: 2026)
    func check(_ v: Double) -> Bool {
        var out: [UInt8] = [0x5B]  // text already in the buffer stays in front
        JSONNumber.append(v, to: &out)
        return out == [0x5B] + Array(v.description.utf8)
    }
    let edges: [Double] = [
        0, -0.0, 1, 0.1, 0.30000000000000004, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
        1e-5, 1e-4, 9.999999999999999e-5, 1e16, 9_007_199_254_740_992, 9_007_199_254_740_993, 18_014_398_509_481_984,
        123_456_789_012_345_680, 19_999.999999999996, 0.000_000_1, 1e-300, 1e300, -12.5, 20_015_086.796,
    ]
    for v in edges { #expect(check(v), "\(v)") }
    var failures = 0
    for _ in 0..<400_000 {
        // Random finite bit patterns, then distances as the engine makes them (0 to 20,000 km).
        let bits = Double(bitPattern: g.next() & 0x7FEF_FFFF_FFFF_FFFF | (g.next() & (1 << 63)))
        let metres = Double.random(in: 0..<20_015_087, using: &g)
        let near = Double.random(in: 0..<2_000, using: &g)
        for v in [bits, metres, near] where !check(v) {
            failures += 1
            if failures < 10 { Issue.record("\(v): \(v.bitPattern)") }
        }
    }
    #expect(failures == 0)
}

@Test func numberParserGrammar() {
    func parse(_ s: String) -> Double? { Array(s.utf8).withUnsafeBytes(JSONNumber.parseDouble) }
    #expect(parse("+5") == 5)
    #expect(parse("-0.5e1") == -5)
    #expect(parse("1e400") == .infinity)
    #expect(parse("0.000000000000000000000000000001") == 1e-30)
    #expect(parse("12345678901234567890123") == 1.2345678901234568e22)
    for bad in ["", "-", ".", "e5", "1e", "1x", "NaN", "inf", "0x10", " 1"] { #expect(parse(bad) == nil, "\(bad)") }
    func int(_ s: String) -> Int? { Array(s.utf8).withUnsafeBytes(JSONNumber.parseInt) }
    #expect(int("-9223372036854775808") == .min)
    #expect(int("9223372036854775808") == nil)
    #expect(int("12.0") == nil)
}

@Test func fixedOrderAndOmittedNils() {
    let p = Place(id: "1", title: "a", lat: 37.5, lon: 127, category: 12, modified: "20240101000000")
    #expect(line(p) == #"{"id":"1","title":"a","lat":37.5,"lon":127.0,"category":12,"modified":"20240101000000"}"#)
}

@Test func leadingExtrasDistanceAndFieldSubset() throws {
    let p = Place(id: "7", title: "t", lat: 1, lon: 2, category: 12)
    #expect(
        line(p, leading: [("qid", .int(3))], distance: 12.5)
            == #"{"qid":3,"id":"7","title":"t","lat":1.0,"lon":2.0,"category":12,"distance":12.5}"#)
    let subset = try PlaceJSON.Selection(names: ["distance", "id", "qid"], extraKeys: ["qid"])
    #expect(
        line(p, leading: [("qid", .string("q1"))], distance: 3, fields: subset)
            == #"{"qid":"q1","id":"7","distance":3.0}"#)
    #expect(throws: PlaceJSON.UnknownFieldError.self) { try PlaceJSON.Selection(names: ["id", "lattitude"]) }
}

@Test func decodeSkipsUnknownMembersAndTakesNullAsNil() throws {
    let p = try decode(
        #"{"qid":1,"x":{"a":[1,2,{"b":null}]},"id":"9","title":"t","lat":1,"lon":2,"category":3,"addr":null,"distance":5}"#
    )
    #expect(p == Place(id: "9", title: "t", lat: 1, lon: 2, category: 3))
}

@Test func decodeErrorsNameTheField() {
    func error(_ s: String) -> String? {
        do {
            _ = try decode(s)
            return nil
        } catch { return error.description }
    }
    #expect(error(#"{"id":"1","title":"a","lat":37.1,"lon":12"#) == "json: unexpected end of input")
    #expect(error(#"{"id":"1","title":"a","lat":"37","lon":1,"category":1}"#) == "lat: expected a number")
    #expect(error(#"{"id":"1","title":"a","lat":1,"lon":1,"category":1.5}"#) == "category: expected an integer")
    #expect(error(#"{"id":"1","title":"a","lat":1,"lon":1}"#) == "category: missing")
    #expect(error(#"{"id":"1","id":"2","title":"a","lat":1,"lon":1,"category":1}"#) == "id: appears twice")
    #expect(
        error(#"{"id":"1","title":"a","lat":1,"lon":1,"category":1} x"#) == "json: unexpected text after the object")
    #expect(error(#"[1]"#) == "json: expected an object")
    let badUTF8 = Array(#"{"id":"1","title":""#.utf8) + [0xC3, 0x28] + Array(#"","lat":1,"lon":1,"category":1}"#.utf8)
    #expect(throws: PlaceJSON.DecodeError(field: "title", reason: "invalid UTF-8")) { try PlaceJSON.decode(badUTF8) }
}

@Test func stringEscapesDecode() throws {
    let json = #"{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\u D83C\uDF89\u0001"}"#.replacingOccurrences(
        of: "\\u D83C", with: "\\uD83C")
    let v = try Array(json.utf8).withUnsafeBytes { try JSONValue.parse($0) }
    #expect(v["s"] == .string("a\"b\\c/d\u{8}\u{c}\n\r\té🎉\u{1}"))
    for bad in [#""\uD83C""#, #""\x""#, #""\u12""#, "\"a\u{1}\""] {
        #expect(throws: JSONError.self) { try Array(bad.utf8).withUnsafeBytes { try JSONValue.parse($0) } }
    }
}

@Test func valueParserKeepsNumbersAndOffsets() throws {
    let json = "{\"a\": [1, -2.5e3, true, null],\n \"b\": {\"c\": \"d\"}}"
    let v = try Array(json.utf8).withUnsafeBytes { try JSONValue.parse($0) }
    #expect(v["a"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .null]))
    guard case .object(let b)? = v["b"] else {
        Issue.record("b is not an object")
        return
    }
    #expect(b.offset == json.utf8.firstIndex(of: UInt8(ascii: "{"), after: 1))
    let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
    #expect(throws: JSONError.self) { try Array(deep.utf8).withUnsafeBytes { try JSONValue.parse($0) } }
    #expect(throws: JSONError.self) { try Array("01".utf8).withUnsafeBytes { try JSONValue.parse($0) } }
}

@Test func utf8Validation() {
    func valid(_ b: [UInt8]) -> Bool { b.withUnsafeBytes(JSONUTF8.isValid) }
    #expect(valid(Array("ascii only, long enough to take the 8-byte path; 한글 🎉 é".utf8)))
    #expect(!valid([0xC0, 0x80]))  // overlong
    #expect(!valid([0xE0, 0x80, 0x80]))  // overlong
    #expect(!valid([0xED, 0xA0, 0x80]))  // surrogate
    #expect(!valid([0xF4, 0x90, 0x80, 0x80]))  // above U+10FFFF
    #expect(!valid([0xEA, 0xB0]))  // truncated
    #expect(!valid(Array("12345678".utf8) + [0xFF]))
}

@Test func writerEscapesControlCharacters() {
    var out: [UInt8] = []
    JSONWriter.appendString("a\"\\\u{0}\u{1f}\n한", to: &out)
    #expect(String(decoding: out, as: UTF8.self) == #""a\"\\\u0000\u001f\n한""#)
}

extension String.UTF8View {
    fileprivate func firstIndex(of byte: UInt8, after n: Int) -> Int? {
        var seen = 0
        for (i, b) in enumerated() where b == byte {
            if seen == n { return i }
            seen += 1
        }
        return nil
    }
}
