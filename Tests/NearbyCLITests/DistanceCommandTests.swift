import Foundation
import Testing

/// `nearby distance` run as a subprocess on real input.
@Suite struct DistanceCommandTests {
    @Test func pairFromArgumentsUnderEachModel() throws {
        let haversine = try CLIRunner.run(["distance", "37.5665", "126.9780", "35.1796", "129.0756"])
        #expect(haversine.status == 0 && haversine.stderr.isEmpty)
        // Full precision: the shortest text that reads back the same double.
        #expect(haversine.output == "325111.7079125589\n")
        let geodesic = try CLIRunner.run(["distance", "--distance", "geodesic", "40.64", "-73.78", "1.36", "103.99"])
        #expect(geodesic.output == "15347512.94051294\n")  // geographiclib-rs documentation: 15347512.94051294
        let projected = try CLIRunner.run([
            "distance", "--distance", "projected", "37.5665", "126.9780", "35.1796", "129.0756",
        ])
        let value = try #require(Double(projected.output.trimmingCharacters(in: .newlines)))
        #expect(abs(value - 324915.297) / 324915.297 < 1e-3)
        let two = try CLIRunner.run(["distance", "0", "0", "0", "180", "90", "0", "-90", "0"])
        #expect(two.output == "20015114.442035925\n20015114.442035925\n")
    }

    /// PROJ is loaded when a model needs it, not at start-up (PROJLibrary.swift): the dynamic loader's
    /// own log (`LD_DEBUG=files`) names libproj for a geodesic distance and not for a haversine one.
    @Test func projIsLoadedOnlyWhenAModelNeedsIt() throws {
        func loadsPROJ(_ arguments: [String]) throws -> Bool {
            let run = try CLIRunner.run(
                ["distance"] + arguments + ["37.5665", "126.9780", "35.1796", "129.0756"],
                environment: ["LD_DEBUG": "files"])
            #expect(run.status == 0)
            #expect(run.stderr.contains("file=libc.so"), "LD_DEBUG gave no log: \(run.stderr.prefix(200))")
            return run.stderr.contains("file=libproj.so")
        }
        #expect(try !loadsPROJ([]))
        #expect(try loadsPROJ(["--distance", "geodesic"]))
    }

    @Test func allModelsAsTextAndJSONLines() throws {
        let text = try CLIRunner.run(["distance", "--all", "40.64", "-73.78", "1.36", "103.99"])
        let columns = text.output.split(separator: " ").map { Double($0.trimmingCharacters(in: .newlines))! }
        #expect(columns.count == 5)
        #expect(columns[1] == 15347512.94051294 && columns[2] == 3.3057734780176125 && columns[3] == 177.48784020815515)
        let jsonl = try CLIRunner.run([
            "distance", "--all", "--format", "jsonl", "--distance", "projected:utm",
            "37.5665", "126.978", "33.4996", "126.5312",
        ])
        let object = try JSONSerialization.jsonObject(with: Data(jsonl.output.utf8)) as! [String: Any]
        #expect(object["crs"] as? String == "utm")
        #expect(
            Set(object.keys) == [
                "lat1", "lon1", "lat2", "lon2", "haversine", "geodesic", "azi1", "azi2", "projected", "crs",
            ])
        let g = object["geodesic"] as! Double
        let p = object["projected"] as! Double
        #expect(abs(p / g - 1) < 1e-3)
    }

    @Test func stdinFormatsAndBadLines() throws {
        let input = """
            37.5665 126.978 35.1796 129.0756
            # a comment, then a blank line

            37.5665,126.978,35.1796,129.0756
            37.5665\t126.978\t35.1796\t129.0756
            {"lat1":37.5665,"lon1":126.978,"lat2":35.1796,"lon2":129.0756}
            1 2 3
            {"lat1":true,"lon1":1,"lat2":2,"lon2":3}
            {"lat1":1,"lon1":2,"lat2":3}
            91 0 0 0
            abc 1 2 3
            0 0 0 0
            """
        let r = try CLIRunner.run(["distance", "--format", "jsonl"], stdin: Data(input.utf8))
        #expect(r.status == 2)
        let lines = r.output.split(separator: "\n")
        #expect(lines.count == 5)  // the four good pairs and the coincident one: nothing good is lost
        #expect(lines.last == #"{"lat1":0.0,"lon1":0.0,"lat2":0.0,"lon2":0.0,"model":"haversine","distance":0.0}"#)
        #expect(
            r.stderr == """
                nearby distance: line 7: expected 4 numbers (lat1 lon1 lat2 lon2), found 3 fields
                nearby distance: line 8: field "lat1" is not a number
                nearby distance: line 9: field "lon2" is missing
                nearby distance: line 10: lat1 91.0 is out of range [-90, 90]
                nearby distance: line 11: lat1 "abc" is not a number

                """)
    }

    @Test func usageErrorsExitWithTwo() throws {
        let unknown = try CLIRunner.run(["distance", "--distance", "projected:EPSG:99999", "1", "2", "3", "4"])
        #expect(unknown.status == 2 && unknown.output.isEmpty)
        #expect(unknown.stderr == "nearby distance: --distance: unknown CRS \"EPSG:99999\"\n")
        let geographic = try CLIRunner.run(["distance", "--distance", "projected:4326", "1", "2", "3", "4"])
        #expect(geographic.status == 2 && geographic.stderr.contains("is not a projected CRS"))
        let odd = try CLIRunner.run(["distance", "1", "2", "3"])
        #expect(odd.status == 2 && odd.stderr.contains("multiple of 4"))
        let option = try CLIRunner.run(["distance", "--bogus", "1", "2", "3", "4"])
        #expect(option.status == 2 && option.stderr == "nearby distance: unknown option '--bogus'\n")
        let notNumber = try CLIRunner.run(["distance", "1", "2", "x", "4"])
        #expect(
            notNumber.status == 2 && notNumber.stderr == "nearby distance: argument 1: lat2 \"x\" is not a number\n")
        let outside = try CLIRunner.run(["distance", "--distance", "projected", "37.5", "127", "0", "37.5"])
        #expect(
            outside.status == 2
                && outside.stderr == "nearby distance: argument 1: cannot project (0.0, 37.5) into EPSG:5179\n")
    }

    @Test func helpTeaches() throws {
        let help = try CLIRunner.run(["distance", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("Examples:") && help.output.contains("projected:utm"))
    }
}
