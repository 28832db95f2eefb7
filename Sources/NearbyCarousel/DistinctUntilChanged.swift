/// RxSwift's `distinctUntilChanged()` as a value-type filter.
///
/// The reference is `DistinctUntilChangedSink` in RxSwift/Observables/DistinctUntilChanged.swift: the first
/// value always passes; afterwards a value whose key equals the key of the last value that *passed* is
/// dropped (`_currentKey` is only updated when a value is forwarded). Completion and errors pass through
/// unchanged, so they need no state here.
public struct DistinctUntilChanged<Key: Equatable> {
    /// The key of the last value that passed.
    public private(set) var last: Key?

    public init() {}

    /// Whether `key` passes; a passing key becomes the one later keys are compared with.
    public mutating func admit(_ key: Key) -> Bool {
        if let l = last, l == key { return false }
        last = key
        return true
    }
}
