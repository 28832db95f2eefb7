import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A TourAPI XML envelope as a client reads it, with Foundation's `XMLParser` (libxml2 on Linux): the
/// server's TourAPI tests and the language services' end-to-end tests read every XML answer with it.
///
/// The shape is data.go.kr's, which TourAPI's KorService2 shares: `<response><header><resultCode>`
/// `<resultMsg>`, then `<body><items><item>` with one element per field, then `<numOfRows>`,
/// `<pageNo>`, `<totalCount>`. Checked against a public test fixture of a data.go.kr KTO (한국관광공사)
/// client found by searching public code for `<resultMsg>OK</resultMsg></header><body><items>`:
/// `<?xml version="1.0"?><response><header><resultCode>0000</resultCode><resultMsg>OK</resultMsg>
/// </header><body><items><item><areaCode>44</areaCode>…</item></items><numOfRows>10</numOfRows>
/// <pageNo>1</pageNo><totalCount>1</totalCount></body></response>`. The empty page is written
/// `<items/>`; other data.go.kr fixtures show `<items></items>`, which a parser reads the same.
public struct TourXML {
    public var header: [String: String] = [:]
    /// `numOfRows`, `pageNo`, `totalCount`.
    public var body: [String: String] = [:]
    public var items: [[(name: String, value: String)]] = []
    /// Whether `<items>` was there (an empty page has it, without `<item>`).
    public var hasItems = false

    public init(_ bytes: [UInt8]) throws {
        let reader = Reader()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        guard parser.parse() else {
            throw TourXMLError(message: "\(parser.parserError.map { "\($0)" } ?? "not XML")")
        }
        self = reader.result
    }

    public struct TourXMLError: Error { public let message: String }

    /// The value of field `name` in item `i`, or nil.
    public func value(_ name: String, at i: Int = 0) -> String? {
        items.indices.contains(i) ? items[i].first { $0.name == name }?.value : nil
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var result = TourXML(empty: ())
        var path: [String] = []
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            path.append(elementName)
            text = ""
            if path == ["response", "body", "items"] { result.hasItems = true }
            if path == ["response", "body", "items", "item"] { result.items.append([]) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
        ) {
            if path.count == 3, path[1] == "header" { result.header[elementName] = text }
            if path.count == 3, path[1] == "body", elementName != "items" { result.body[elementName] = text }
            if path.count == 5, path[3] == "item" { result.items[result.items.count - 1].append((elementName, text)) }
            path.removeLast()
            text = ""
        }
    }

    private init(empty: Void) {}
}
