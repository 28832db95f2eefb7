import NearbyStore

/// Invariants every parse result keeps, whatever the input.
enum FuzzCheck {
    static func parsed(_ p: ParsedInput?) {
        guard let p else { return }
        for e in p.errors {
            precondition(e.line >= 1, "line numbers are 1-based")
            precondition(!e.description.contains("\n"), "one message per line")
        }
        for r in p.records where r.line < 1 { preconditionFailure("record line \(r.line)") }
    }
}
