import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

@testable import NearbyServer

/// A cache of 400 places of the fixture's grid, a barrier-free detail on some, a pet detail on others,
/// both on a few, and an empty detail text (no detail) on some: what KorWithService2 and
/// KorPetTourService2 list.
final class DetailServicesFixture {
    let folder: TempFolder
    let server: RunningServer
    let places: [Place]

    init() throws {
        folder = try TempFolder()
        var places = Fixture.places(400)
        for i in places.indices {
            if i % 3 == 0 {
                places[i].merge(
                    PlaceDetail(
                        id: places[i].id, kind: .barrierFree, fields: [.init(name: "wheelchair", text: "대여 가능")]))
            } else if i % 11 == 1 {
                places[i].barrierFree = ""
            }
            if i % 5 == 1 || i % 15 == 0 {
                places[i].merge(
                    PlaceDetail(id: places[i].id, kind: .pet, fields: [.init(name: "acmpyNeedMtr", text: "목줄")]))
            }
            if i % 2 == 0 { places[i].image = "http://img/\(i).jpg" }
        }
        self.places = places
        let path = folder.file("places.sqlite")
        _ = try Importer().importPlaces(places, into: PlaceCache(path: path))
        server = try RunningServer(path: path)
    }

    deinit { server.stop() }
}

extension RealServer {
    /// KorWithService2's and KorPetTourService2's lists, details and code lists: KorService2's answers
    /// over the places with the service's detail, in both envelopes (the XML read by a real parser).
    @Suite final class TourAPIDetailServicesTests {
        let fixture: DetailServicesFixture
        init() throws { fixture = try DetailServicesFixture() }
        var server: RunningServer { fixture.server }
        var places: [Place] { fixture.places }

        static let services: [(service: String, kind: PlaceDetail.Kind, sync: String)] = [
            ("KorWithService2", .barrierFree, "areaBasedSyncList2"), ("KorPetTourService2", .pet, "petTourSyncList2"),
        ]

        /// The ids of the places with a detail of `kind`, written out from the fixture's texts.
        func withDetail(_ kind: PlaceDetail.Kind) -> Set<String> {
            Set(
                places.filter { !((kind == .barrierFree ? $0.barrierFree : $0.petInfo) ?? "").isEmpty }.map(\.id))
        }

        /// Every item of KorService2's answer to `query` (one page of all), and the service's.
        func both(_ service: String, _ operation: String, _ query: String) throws -> (TourAnswer, TourAnswer) {
            let all = "&numOfRows=1000&pageNo=1"
            return (
                try TourAnswer(server, "/B551011/KorService2/\(operation)?\(query)\(all)"),
                try TourAnswer(server, "/B551011/\(service)/\(operation)?\(query)\(all)")
            )
        }

        /// The answer equals KorService2's with the places without the detail left out: the same items,
        /// fields and values, in the same order, and the total counts them.
        func expectRestricted(
            _ kor: TourAnswer, _ answer: TourAnswer, _ kind: PlaceDetail.Kind,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let wanted = withDetail(kind)
            let expected = kor.items.filter { wanted.contains($0["contentid"] as? String ?? "") }
            #expect(answer.ids == expected.map { $0["contentid"] as? String ?? "" }, sourceLocation: sourceLocation)
            #expect(answer.totalCount == expected.count, sourceLocation: sourceLocation)
            #expect(
                answer.names
                    == zip(kor.names, kor.items).filter { wanted.contains($0.1["contentid"] as? String ?? "") }
                    .map(\.0), sourceLocation: sourceLocation)
            for (a, e) in zip(answer.items, expected) {
                #expect(a as? [String: String] == e as? [String: String], sourceLocation: sourceLocation)
            }
        }

        @Test(arguments: [0, 1])
        func testListsAreKorService2sOverThePlacesWithTheDetail(_ n: Int) throws {
            let (service, kind, _) = Self.services[n]
            let wanted = withDetail(kind)
            #expect(!wanted.isEmpty && wanted.count < places.count)
            let queries = [
                ("areaBasedList2", ""), ("areaBasedList2", "arrange=A"), ("areaBasedList2", "arrange=Q"),
                ("areaBasedList2", "contentTypeId=12&sigunguCode=6"), ("areaBasedList2", "contentTypeId=39,14"),
                ("locationBasedList2", "mapX=126.95&mapY=37.505&radius=3000"),
                ("locationBasedList2", "mapX=126.95&mapY=37.505&radius=2000&arrange=C"),
                ("searchKeyword2", "keyword=%EC%9E%A5%EC%86%8C%201"),  // 장소 1
            ]
            for (operation, query) in queries {
                let (kor, answer) = try both(service, operation, query)
                #expect(kor.totalCount! > answer.totalCount! && answer.totalCount! > 0, "\(operation)?\(query)")
                expectRestricted(kor, answer, kind)
            }
            // areaBasedList2 of every place: exactly the places with the detail (brute force), newest first.
            let all = try TourAnswer(server, "/B551011/\(service)/areaBasedList2?numOfRows=1000")
            let expected = places.filter { wanted.contains($0.id) }.sorted {
                ($0.modified ?? "", Int($1.id)!) > ($1.modified ?? "", Int($0.id)!)
            }
            #expect(all.ids == expected.map(\.id))
            #expect(all.totalCount == wanted.count)
        }

        @Test(arguments: [0, 1])
        func testPagingAndTheEmptyPage(_ n: Int) throws {
            let (service, kind, _) = Self.services[n]
            let base = "/B551011/\(service)/areaBasedList2?arrange=A"
            let whole = try TourAnswer(server, base + "&numOfRows=1000")
            var paged: [String] = []
            for page in 1...((whole.totalCount! + 6) / 7) {
                let r = try TourAnswer(server, base + "&numOfRows=7&pageNo=\(page)")
                #expect(r.totalCount == withDetail(kind).count)
                #expect(r.body["numOfRows"] as? Int == 7 && r.body["pageNo"] as? Int == page)
                paged += r.ids
            }
            #expect(paged == whole.ids && Set(paged) == withDetail(kind))
            // Past the last page, and a filter nothing passes: TourAPI's empty page (`TourAnswer` checks
            // `"items": ""` and `<items/>`), with the total.
            let past = try TourAnswer(server, base + "&numOfRows=7&pageNo=\((whole.totalCount! + 6) / 7 + 1)")
            #expect(past.items.isEmpty && past.totalCount == whole.totalCount)
            let none = try TourAnswer(server, "/B551011/\(service)/searchKeyword2?keyword=%EC%97%86%EB%8A%94")
            #expect(none.items.isEmpty && none.totalCount == 0)
        }

        @Test(arguments: [0, 1])
        func testTheChangeList(_ n: Int) throws {
            let (service, kind, sync) = Self.services[n]
            let r = try TourAnswer(server, "/B551011/\(service)/\(sync)?numOfRows=1000&showflag=1")
            let kor = try TourAnswer(server, "/B551011/KorService2/areaBasedSyncList2?numOfRows=1000&showflag=1")
            expectRestricted(kor, r, kind)
            #expect(Set(r.ids) == withDetail(kind))
            let filtered = try TourAnswer(server, "/B551011/\(service)/\(sync)?numOfRows=1000&contentTypeId=12")
            let korFiltered = try TourAnswer(
                server, "/B551011/KorService2/areaBasedSyncList2?numOfRows=1000&contentTypeId=12")
            expectRestricted(korFiltered, filtered, kind)
        }

        @Test(arguments: [0, 1])
        func testDetailsOfPlacesWithAndWithoutTheDetail(_ n: Int) throws {
            let (service, kind, _) = Self.services[n]
            let wanted = withDetail(kind)
            let with = try #require(places.first { wanted.contains($0.id) && $0.image != nil })
            let without = try #require(places.first { !wanted.contains($0.id) && $0.image != nil })
            for operation in ["detailCommon2", "detailImage2", "detailIntro2", "detailInfo2"] {
                let kor = try TourAnswer(server, "/B551011/KorService2/\(operation)?contentId=\(with.id)")
                let answer = try TourAnswer(server, "/B551011/\(service)/\(operation)?contentId=\(with.id)")
                #expect(answer.names == kor.names, "\(operation)")
                #expect(answer.items.map { $0 as? [String: String] } == kor.items.map { $0 as? [String: String] })
                // A place the service does not list: no item, though KorService2 has one.
                let none = try TourAnswer(server, "/B551011/\(service)/\(operation)?contentId=\(without.id)")
                #expect(none.items.isEmpty && none.totalCount == 0, "\(operation)")
            }
            #expect(
                try TourAnswer(server, "/B551011/KorService2/detailCommon2?contentId=\(without.id)").totalCount == 1)
        }

        @Test(arguments: [0, 1])
        func testCodeListsAreKorService2s(_ n: Int) throws {
            let service = Self.services[n].service
            for query in [
                "areaCode2?numOfRows=50", "areaCode2?areaCode=1", "categoryCode2?cat1=A01", "ldongCode2?lDongRegnCd=11",
                "lclsSystmCode2?lclsSystm1=FD", "ldongCode2?lDongListYn=Y&numOfRows=5&pageNo=2",
            ] {
                for type in ["", "&_type=json"] {
                    let kor = try server.http.get("/B551011/KorService2/" + query + type)
                    let answer = try server.http.get("/B551011/\(service)/" + query + type)
                    #expect(answer.status == 200 && answer.body == kor.body, "\(service)/\(query)\(type)")
                }
            }
        }

        /// Every KorService2 operation is one of each detail service's (under its name there), or one the
        /// detail services do not have, named in `TourAPI.notInDetailServices`: an operation added to
        /// KorService2 is served by them too, or this fails.
        @Test func testTheDetailServicesHaveKorService2sOperations() throws {
            let kor = TourAPI.served.filter { $0.service == "KorService2" }
            for (service, kind, sync) in Self.services {
                let own = TourAPI.served.filter { $0.service == service }
                let detailOperation = service == "KorWithService2" ? "detailWithTour2" : "detailPetTour2"
                var expected: [String: TourOperation.Kind] = [detailOperation: kind == .pet ? .pet : .barrierFree]
                for operation in kor where !TourAPI.notInDetailServices.contains(operation.name) {
                    expected[operation.name == "areaBasedSyncList2" ? sync : operation.name] = operation.kind
                }
                #expect(Dictionary(uniqueKeysWithValues: own.map { ($0.name, $0.kind) }) == expected, "\(service)")
                #expect(own.allSatisfy { $0.name == detailOperation || $0.detail == kind }, "\(service)")
                #expect(own.allSatisfy { $0.generation == .two && $0.language == .ko })
            }
            #expect(
                Set(kor.map(\.name)).isSuperset(of: TourAPI.notInDetailServices),
                "a name in notInDetailServices that KorService2 does not have")
            // KorPetTourService2 has no areaBasedSyncList2 (its change list is petTourSyncList2).
            let r = try server.http.get("/B551011/KorPetTourService2/areaBasedSyncList2")
            #expect(r.status == 404)
        }
    }
}
