// Batch query lines (`nearby query --queries`): a JSON line, or a TSV header and a row (the input's first
// line and the rest). A line that parses renders back to parameters that parse to the same query; every
// error message is one line.
import NearbyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do throws(RequestError) {
        let line: BatchLine.Parameters
        if bytes.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "{") {
            line = try BatchLine.json(bytes)
        } else {
            let newline = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
            let header = try BatchLine.header(Array(bytes[..<newline]))
            line = try BatchLine.tsv(Array(bytes[min(newline + 1, bytes.endIndex)...]), header: header)
        }
        let query = try QueryParameters.parse(line.pairs)
        let rendered = QueryParameters.render(query)
        do throws(RequestError) {
            let again = try QueryParameters.parse(rendered)
            precondition(again == query, "parse(render(q)) == q: \(rendered)")
        } catch {
            preconditionFailure("render(q) does not parse: \(rendered): \(error)")
        }
    } catch {
        precondition(!error.message().contains(where: \.isNewline), "one-line message: \(error.message())")
    }
    return 0
}
