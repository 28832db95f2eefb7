import NearbyCore
import Testing

/// The two mappings of `ErrorKind`, written out: a kind added without an exit code and an HTTP status
/// here fails `everyKindIsMapped`.
@Suite struct ErrorKindTests {
    static let expected: [ErrorKind: (exitCode: Int32, httpStatus: Int)] = [
        .usage: (2, 400),
        .notFound: (1, 404),
        .conflict: (1, 409),
        .unavailable: (1, 503),
        .unsupported: (1, 500),
        .damaged: (1, 500),
        .io: (1, 500),
        .internal: (1, 500),
    ]

    @Test func everyKindIsMapped() {
        #expect(Set(Self.expected.keys) == Set(ErrorKind.allCases))
        for kind in ErrorKind.allCases {
            guard let e = Self.expected[kind] else {
                Issue.record("\(kind) has no expected exit code and HTTP status")
                continue
            }
            #expect(kind.exitCode == e.exitCode, "\(kind)")
            #expect(kind.httpStatus == e.httpStatus, "\(kind)")
        }
    }

    @Test func foreignErrorsAreInternal() {
        struct Foreign: Error {}
        #expect(ErrorKind(of: Foreign()) == .internal)
        #expect(ErrorKind(of: RequestError(parameter: "radius", reason: "not a number")) == .usage)
    }

    @Test func kindsMatchInCatchAndSwitch() {
        do { throw RequestError.staleCursor } catch  where ErrorKind(of: error) == .conflict {} catch {
            Issue.record("\(error) did not match .conflict")
        }
        let error: any Error = RequestError.malformedCursor
        switch ErrorKind(of: error) {
        case .usage: break
        default: Issue.record("\(error) did not match .usage")
        }
        #expect((error as? any NearbyError)?.kind == .usage)
    }
}
