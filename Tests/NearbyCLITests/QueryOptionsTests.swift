import NearbyKit
import Testing

@testable import nearby

/// Every parameter of the one request parser is a flag of `nearby query`, and reaches the parser.
@Suite struct QueryOptionsTests {
    @Test func everyParameterIsAFlagThatArrives() throws {
        for p in QueryParameters.all {
            let arguments = p.isFlag ? ["--\(p.name)"] : ["--\(p.name)", "x"]
            let options = try QueryOptions.parse(arguments)
            #expect(options.parameters.map(\.name) == [p.name], "--\(p.name) did not arrive")
        }
    }

    @Test func repeatedListFlagsAddUp() throws {
        let options = try QueryOptions.parse([
            "--category", "12", "--category", "39", "--lat", "-33.9", "--lon", "151.2",
        ])
        let q = try QueryParameters.parse(options.parameters)
        #expect(q.filter.categories == [12, 39] && q.center == Coordinate(lat: -33.9, lon: 151.2))
    }
}
