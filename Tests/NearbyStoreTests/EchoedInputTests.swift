import Foundation
import NearbyCore
import NearbyTestSupport
import Testing

@testable import NearbyStore

/// Hardening: input echoed in messages is quoted, cut and escaped; one message per line.
@Suite struct EchoedInputTests {
    @Test func echoedValuesAreQuotedCutAndEscaped() throws {
        #expect(MessageText.quoted("abc") == #""abc""#)
        #expect(
            MessageText.quoted("a\nb\u{1B}[31m\"\\\u{0}\u{7F}\u{85}\u{2028}\u{202E}")
                == #""a\nb\u001b[31m\"\\\u0000\u007f\u0085\u2028\u202e""#)
        let long = MessageText.quoted(String(repeating: "가", count: 500))
        #expect(long == "\"" + String(repeating: "가", count: 80) + "\"…")
        // A grapheme of thousands of combining marks is cut too (by scalars, not Characters).
        #expect(MessageText.quoted("e" + String(repeating: "\u{301}", count: 5000)).unicodeScalars.count < 90)
    }

    @Test func hostileFieldsGiveOneShortLineEach() throws {
        let header = "id\ttitle\tlat\tlon\tcategory\tcreated\n"
        let rows = [
            "1\tA\t37.5\t127\t12\t\u{1B}[31mred\u{1B}[0m",
            "2\tB\t\(String(repeating: "9", count: 100_000))x\t127\t12\t",
            "3\tC\t37.5\t127\tx\u{0}y\t",
        ]
        let parsed = try parseFile(header + rows.joined(separator: "\n") + "\n", name: "h.tsv")
        #expect(parsed.messages.count == 3)
        for m in parsed.messages {
            #expect(!m.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(m.debugDescription)")
            #expect(m.count < 200)
        }
        #expect(parsed.messages[0] == #"h.tsv:2: created: "\u001b[31mred\u001b[0m" is not a yyyyMMddHHmmss date-time"#)
        #expect(parsed.messages[2] == #"h.tsv:4: category: "x\u0000y" is not an integer"#)
    }

    @Test func csvNewlineInsideQuotesStaysOnOneMessageLine() throws {
        let csv = "id,title,lat,lon,category,created\n1,A,37.5,127,12,\"2024\nfake.csv:1: id: injected\"\n"
        let parsed = try parseFile(csv, name: "n.csv")
        #expect(
            parsed.messages == [
                #"n.csv:2: created: "2024\nfake.csv:1: id: injected" is not a yyyyMMddHHmmss date-time"#
            ])
    }

    @Test func hugeHeaderGivesAShortRefusal() throws {
        let header = String(repeating: "x", count: 5_000_000) + "\u{1B}]0;title\u{7},b\n1,2\n"
        let message = try #require(refusal(header, name: "big.csv"))
        #expect(message.count < 2000)
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 })
        let keys = try #require(
            refusal(#"{"\u001b[2J":1,"\#(String(repeating: "k", count: 10_000))":2}"#, name: "k.json"))
        #expect(keys.count < 400)
        #expect(!keys.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func fileNamesWithControlCharactersStayOnOneLine() {
        let e = RecordError(file: "evil\nname.tsv", line: 2, field: "lat", reason: "missing")
        #expect(e.description == #"evil\nname.tsv:2: lat: missing"#)
        let u = UnsupportedInputError(file: "a\rb", message: "x\ny")
        #expect(u.description == #"a\rb: x\ny"#)
    }
}
