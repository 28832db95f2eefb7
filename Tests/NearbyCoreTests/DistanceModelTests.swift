import NearbyCore
import Testing

@Suite struct DistanceModelTests {
    /// Haversine against an independent computation: exact binary64 inputs, unit vectors and
    /// R·atan2(|p×q|, p·q) in 50-digit arithmetic (Python mpmath 1.3.0, mp.dps = 50, R = 6371008.8):
    ///   r = pi/180; v(la, lo) = (cos la·cos lo, cos la·sin lo, sin la) with la = mpf(float(text))·r;
    ///   d = R·atan2(sqrt(sum((p×q)²)), p·q)
    static let haversineReference: [(Double, Double, Double, Double, Double)] = [
        (37.5665, 126.978, 35.1796, 129.0756, 325111.7079125588766748254),  // Seoul City Hall – Busan
        (40.64, -73.78, 1.36, 103.99, 15339453.62412897716583581),  // JFK – SIN
        (37.5665, 126.978, 37.56651, 126.97801, 1.418898021382814631671041),  // 1.4 m
        (0, 0, 0, 180, 20015114.442035924312426),  // antipodal on the equator: πR
        (90, 0, -90, 0, 20015114.442035924312426),  // pole to pole
        (10, 179.5, -10, -179.5, 2226651.497268279879258797),  // across the antimeridian
        (33.4996, 126.5312, 38.2, 128.6, 554879.2828565509423933771),  // Jeju – Sokcho
        (-33.8688, 151.2093, 51.5074, -0.1278, 16993956.9328165367774466),  // Sydney – London
    ]

    @Test func haversineMatchesHighPrecisionReference() throws {
        for (lat1, lon1, lat2, lon2, reference) in Self.haversineReference {
            let d = Haversine.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            #expect(abs(d - reference) <= 1e-9 * reference, "\(lat1) \(lon1) \(lat2) \(lon2): \(d) vs \(reference)")
            #expect(try DistanceModel.haversine.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) == d)
        }
    }

    @Test func parsesEveryForm() throws {
        let cases: [(String, DistanceModel, String)] = [
            ("haversine", .haversine, "haversine"),
            ("geodesic", .geodesic, "geodesic"),
            ("Geodesic", .geodesic, "geodesic"),
            ("projected", .projected(.epsg(5179)), "projected:EPSG:5179"),
            ("projected:EPSG:5179", .projected(.epsg(5179)), "projected:EPSG:5179"),
            ("projected:epsg:32652", .projected(.epsg(32652)), "projected:EPSG:32652"),
            ("projected:5186", .projected(.epsg(5186)), "projected:EPSG:5186"),
            ("projected:utm", .projected(.utm), "projected:utm"),
            ("projected:UTM", .projected(.utm), "projected:utm"),
        ]
        for (text, model, description) in cases {
            let parsed = try DistanceModel(parsing: text)
            #expect(parsed == model)
            #expect(parsed.description == description)
            #expect(try DistanceModel(parsing: description) == model)
        }
        #expect(DistanceModel.default == .haversine)
        #expect(Set([DistanceModel.haversine, .geodesic, .projected(.utm), .projected(.epsg(5179))]).count == 4)
    }

    @Test func rejectsBadModelsWithClearMessages() {
        func message(_ text: String) -> String? {
            do {
                _ = try DistanceModel(parsing: text)
                return nil
            } catch { return "\(error)" }
        }
        #expect(message("projected:EPSG:99999") == "unknown CRS \"EPSG:99999\"")
        #expect(message("projected:99999") == "unknown CRS \"EPSG:99999\"")
        #expect(message("projected:EPSG:abc") == "unknown CRS \"EPSG:abc\"")
        #expect(message("projected:") == "unknown CRS \"\"")
        #expect(message("projected:EPSG:4326") == "CRS \"EPSG:4326\" (WGS 84) is not a projected CRS")
        #expect(message("vincenty")?.hasPrefix("unknown distance model \"vincenty\"") == true)
        // Found by FuzzBatchLine: the echoed text is quoted with control characters visible (one line).
        #expect(message("proje\rcted:EPSG:3857")?.hasPrefix(#"unknown distance model "proje\rcted:EPSG:3857""#) == true)
        #expect(message("") != nil)
    }

    @Test func modelsAgreeOnKoreanDistances() throws {
        // Seoul City Hall to Busan: the three models within 0.1 % of each other.
        let (lat1, lon1, lat2, lon2) = (37.5665, 126.978, 35.1796, 129.0756)
        let geodesic = try DistanceModel.geodesic.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        #expect(abs(geodesic - 324915.2974531316) < 1e-6)  // PROJ: geod +ellps=WGS84 -I -f %.10f
        for model: DistanceModel in [.haversine, .projected(.korea2000), .projected(.utm), .projected(.epsg(5186))] {
            let d = try model.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            #expect(abs(d / geodesic - 1) < 1e-3, "\(model): \(d)")
        }
    }

    @Test func coincidentPointsAreZeroInEveryModel() throws {
        for model: DistanceModel in [.haversine, .geodesic, .projected(.korea2000), .projected(.utm)] {
            #expect(try model.distance(lat1: 35.1796, lon1: 129.0756, lat2: 35.1796, lon2: 129.0756) == 0)
        }
    }
}
