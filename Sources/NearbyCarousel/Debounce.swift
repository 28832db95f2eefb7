/// RxSwift's `debounce(dueTime, scheduler:)` as a value-type state machine on a virtual clock (ms).
///
/// The reference is `DebounceSink` in RxSwift/Observables/Debounce.swift (Krunoslav Zaher, 2016):
/// - `.next`: `_id += 1; _value = element; scheduleRelative(currentId, dueTime, propagate)`: each value
///   replaces the pending one and restarts the timer (the `SerialDisposable` cancels the old timer).
/// - `propagate(currentId)`: emits `_value` only when `_id == currentId`, i.e. no newer value arrived.
/// - `.completed`: a pending `_value` is forwarded at once, then completion.
/// - `.error`: `_value = nil`, the error is forwarded at once: the pending value is lost.
///
/// Ties: RxSwift's `VirtualTimeScheduler` orders its queue by time, then by scheduling id, and a
/// `TestScheduler` hot observable schedules all of its recorded events when it is created, before any
/// timer exists. So a value arriving exactly `dueTime` after the previous one is delivered *before* the
/// timer due at that instant, cancels it, and the earlier value is never emitted. The caller's event loop
/// implements that order: it fires the timer only for instants strictly before the next input's time
/// (`fire(before:)`), and for the final drain at or after the deadline (`fire(through:)`). We do not model
/// `TestScheduler`'s optional processing delay (a timer due "now" moved to now + 1), so `dueTime` 0 emits at
/// the instant of the last value of that instant.
///
/// No allocation, no closures: `Value` is stored inline.
public struct Debounce<Value> {
    public let dueTime: Int64
    /// The value waiting for its timer, if any.
    public private(set) var pending: Value?
    /// When the pending value falls due (meaningful only while `pending != nil`).
    public private(set) var deadline: Int64 = 0

    public init(dueTime: Int64) {
        precondition(dueTime >= 0, "debounce time must not be negative")
        self.dueTime = dueTime
    }

    /// A value at time `t`: it replaces any pending value and restarts the timer.
    public mutating func next(_ value: Value, at t: Int64) {
        pending = value
        deadline = t + dueTime
    }

    /// The timer: the pending value if it falls due strictly before `t`, with the instant it is emitted.
    public mutating func fire(before t: Int64) -> (value: Value, at: Int64)? {
        guard let v = pending, deadline < t else { return nil }
        pending = nil
        return (v, deadline)
    }

    /// The timer during a final drain: the pending value if it falls due at or before `t`.
    public mutating func fire(through t: Int64) -> (value: Value, at: Int64)? {
        guard let v = pending, deadline <= t else { return nil }
        pending = nil
        return (v, deadline)
    }

    /// Completion: the pending value, to be emitted immediately (before the completion itself).
    public mutating func complete() -> Value? {
        defer { pending = nil }
        return pending
    }

    /// An error: the pending value is dropped; the caller forwards the error immediately.
    public mutating func fail() {
        pending = nil
    }
}
