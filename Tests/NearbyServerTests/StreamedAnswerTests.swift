import Foundation
import NearbyKit
import NearbyServer
import NearbyTestSupport
import Testing

extension RealServer {
    /// A streamed page (more than 2,000 rows), whose records the writer fetches a chunk at a time,
    /// is byte for byte what the output layer writes from the engine's answer with its records.
    @Suite struct StreamedAnswerTests {
        @Test func testAStreamedPageIsTheOutputLayersBytesInEveryFormat() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 6_000)
            let server = try RunningServer(path: path)
            defer { server.stop() }
            let engine = try EngineKind.snapshot.open(PlaceCache(path: path, readOnly: true))
            let (lat, lon) = Fixture.seoul
            let query = try QueryParameters.parse(
                [("lat", "\(lat)"), ("lon", "\(lon)"), ("limit", "5000")], areas: RegionAreas.shared)
            let answer = try engine.run(query, records: true)
            #expect(answer.rows.count == 5_000)
            for format in [OutputFormat.jsonl, .geojson, .tsv] {
                let r = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&limit=5000&format=\(format.rawValue)")
                #expect(r.status == 200 && r.chunked, "\(format): \(r.text.prefix(200))")
                final class Collected: @unchecked Sendable { var bytes: [UInt8] = [] }
                let expected = Collected()
                var writer = PlaceWriter(
                    format: format, to: StdoutBlocks(blockSize: 1 << 16) { expected.bytes.append(contentsOf: $0) })
                try writer.write(answer, query: query, tookMs: 0)
                try writer.finish()
                #expect(
                    Array(r.body) == expected.bytes,
                    "\(format): \(r.body.count) bytes, expected \(expected.bytes.count)")
            }
            // JSON: the same places as the JSON lines, in the envelope.
            let json = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&limit=5000")
            let lines = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&limit=5000&format=jsonl")
            let places = json.text.firstRange(of: "\"places\":[").map { json.text[$0.upperBound...] } ?? ""
            let joined = lines.text.split(separator: "\n").joined(separator: ",")
            #expect(places == joined + "]\n}\n", "\(json.text.prefix(200))")
            #expect(json.json["total"] as? Int == 6_000)
            #expect(json.json["next"] as? String == answer.nextCursor)
        }

        /// The SQLite engine answers a page without records with its rows' ids alone (not the records of
        /// the candidates it read), and its streamed page is the output layer's bytes as well.
        @Test func testTheSQLiteEnginesStreamedPageHoldsIDsAndIsTheOutputLayersBytes() throws {
            let folder = try TempFolder()
            let path = try Fixture.cache(in: folder, count: 6_000)
            let server = try RunningServer(path: path, provider: .kind(.sqlite))
            defer { server.stop() }
            let engine = try EngineKind.sqlite.open(PlaceCache(path: path, readOnly: true))
            let (lat, lon) = Fixture.seoul
            let query = try QueryParameters.parse(
                [("lat", "\(lat)"), ("lon", "\(lon)"), ("limit", "5000")], areas: RegionAreas.shared)
            let answer = try engine.run(query, records: true)
            let rows = try engine.run(query, records: false)
            #expect(!rows.rows.readsRecords && rows.rows.ids == answer.rows.ids)
            #expect(rows.distances == answer.distances && rows.nextCursor == answer.nextCursor)
            final class Collected: @unchecked Sendable { var bytes: [UInt8] = [] }
            let expected = Collected()
            var writer = PlaceWriter(
                format: .jsonl, to: StdoutBlocks(blockSize: 1 << 16) { expected.bytes.append(contentsOf: $0) })
            try writer.write(answer, query: query, tookMs: 0)
            try writer.finish()
            let r = try server.http.get("/v1/places?lat=\(lat)&lon=\(lon)&limit=5000&format=jsonl")
            #expect(r.status == 200 && r.chunked, "\(r.text.prefix(200))")
            #expect(Array(r.body) == expected.bytes, "\(r.body.count) bytes, expected \(expected.bytes.count)")
        }
    }
}
