import Foundation
import NearbyKit
import NearbyTestSupport
import Testing

extension RealServer {
    /// A keyword query on `/v1/places` with a token records the keyword in that user's search history,
    /// as `nearby query --keyword` does: newest first, a repeated keyword moved to the top, capped at
    /// `--history-length`; not with `no-history=true`, nor for a later page of the same search; an
    /// anonymous search records nothing; `/v1/me/history` shows it at once.
    @Suite struct SearchHistoryTests {
        typealias Served = MeAPITests.Served

        /// `user`'s keywords in the cache, newest first.
        static func keywords(_ s: Served, _ user: String) throws -> [String] {
            try PersonalLayer(store: s.cache).history(user: user).map(\.keyword)
        }

        /// `user`'s keywords as `/v1/me/history` answers them.
        static func served(_ s: Served, token: String) throws -> [String] {
            let r = try s.send("GET", "/v1/me/history", token: token)
            #expect(r.status == 200, "\(r.text)")
            return (r.json["history"] as? [[String: Any]] ?? []).compactMap { $0["keyword"] as? String }
        }

        static func search(_ s: Served, _ parameters: String, token: String?) throws -> LoopbackHTTP.Response {
            let r = try s.send("GET", "/v1/places?\(parameters)", token: token)
            #expect(r.status == 200, "\(parameters): \(r.status) \(r.text)")
            return r
        }

        /// `keyword=…`, every byte but ASCII letters and digits %-escaped.
        static func q(_ keyword: String) -> String { "keyword=" + escaped(keyword) }

        static func escaped(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: ascii))!
        }

        static let ascii = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

        @Test func aSearchIsRecordedForTheTokensUserOnlyAndShownAtOnce() throws {
            let s = try Served()
            let before = try ["bo", "old"].map { try Self.keywords(s, $0) }
            let r = try Self.search(s, Self.q("경복") + "&lat=37.5&lon=126.9&radius=5000", token: s.ana)
            #expect(r.json["total"] as? Int == 1, "the answer is the public one: \(r.text)")
            #expect(try Self.keywords(s, "ana") == ["경복", "궁"])
            #expect(try Self.served(s, token: s.ana) == ["경복", "궁"])
            // The keyword as NFC, like the CLI's.
            _ = try Self.search(s, Self.q("e\u{301}te\u{301}"), token: s.ana)
            let nfc = try #require(try Self.served(s, token: s.ana).first)
            #expect(Array(nfc.unicodeScalars) == Array("\u{e9}t\u{e9}".unicodeScalars))
            // A personal search (keyword and a personal condition) records too.
            _ = try Self.search(s, Self.q("장소") + "&bookmarked=true", token: s.ana)
            #expect(try Self.keywords(s, "ana").first == "장소")
            // Nobody else's history moved, and bo's shows none of ana's searches.
            #expect(try ["bo", "old"].map { try Self.keywords(s, $0) } == before)
            #expect(try Self.served(s, token: s.bo).isEmpty)
            _ = try Self.search(s, Self.q("덕수"), token: s.bo)
            #expect(try Self.keywords(s, "bo") == ["덕수"])
            #expect(try Self.keywords(s, "ana") == ["장소", "\u{e9}t\u{e9}", "경복", "궁"])
        }

        @Test func anAnonymousSearchRecordsNothingAndABadTokenIsRefused() throws {
            let s = try Served()
            let before = try ["ana", "bo", "old"].map { try Self.keywords(s, $0) }
            _ = try Self.search(s, Self.q("경복"), token: nil)
            _ = try Self.search(s, Self.q("덕수") + "&no-history=true", token: nil)
            // A token that names no active user is the one 401, with nothing recorded.
            for token in [s.old, "nby_unknown"] {
                let r = try s.send("GET", "/v1/places?\(Self.q("경복"))", token: token)
                #expect(r.status == 401, "\(r.text)")
            }
            // A query without a keyword reads no header: a bad token does not matter to it.
            #expect(try s.send("GET", "/v1/places?lat=37.5&lon=126.9&radius=500", token: "nby_unknown").status == 200)
            #expect(try ["ana", "bo", "old"].map { try Self.keywords(s, $0) } == before)
        }

        @Test func aRepeatedKeywordMovesToTheTopAndTheHistoryIsCapped() throws {
            let s = try Served { $0.historyLength = 3 }
            for keyword in ["가", "나", "다", "가"] { _ = try Self.search(s, Self.q(keyword), token: s.ana) }
            #expect(try Self.served(s, token: s.ana) == ["가", "다", "나"])
            _ = try Self.search(s, Self.q("라"), token: s.ana)
            _ = try Self.search(s, Self.q("마"), token: s.ana)
            #expect(try Self.served(s, token: s.ana) == ["마", "라", "가"])
            #expect(try Self.keywords(s, "ana").count == 3)
        }

        @Test func noHistoryAndLaterPagesRecordNothing() throws {
            let s = try Served()
            _ = try Self.search(s, Self.q("경복") + "&no-history=true", token: s.ana)
            #expect(try Self.keywords(s, "ana") == ["궁"])
            // A search's next page (by its cursor or page=) is the same search.
            let first = try Self.search(s, Self.q("장소") + "&limit=5", token: s.ana)
            _ = try Self.search(s, Self.q("덕수"), token: s.ana)
            let next = try #require(first.json["next"] as? String)
            _ = try Self.search(s, Self.q("장소") + "&limit=5&cursor=\(Self.escaped(next))", token: s.ana)
            _ = try Self.search(s, Self.q("장소") + "&limit=5&page=3", token: s.ana)
            #expect(try Self.keywords(s, "ana") == ["덕수", "장소", "궁"])
        }
    }
}
