/// The date rules: TourAPI's digit forms `yyyyMMdd` (a day) and `yyyyMMddHHmmss` (a date-time), each
/// field in its range — month 01–12, day 01–31, hour 00–23, minute and second 00–59.
///
/// Import (`isDay`, `isDateTime`) does not check the calendar, on purpose: 30 February passes. The
/// benchmark workload (`nearby generate --workload`, like the shared make_dataset.py) writes 30-day
/// months, so a calendar check would drop ~0.9 % of it (29–30 February in common years, 30 February
/// in leap years) and its answers would no longer match other engines' on the same files. Such days
/// sort and compare as their digits. A filter names days of the calendar only (`isCalendarDay`,
/// through `DateBound`): a day that does not exist is a typo to report, and a range across the end of
/// February still finds the stored 30 February.
public enum TourDate {
    /// `yyyyMMdd` with month 01–12 and day 01–31.
    public static func isDay(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in u.count == 8 && u.allSatisfy({ $0 &- 0x30 < 10 }) && validDay(u) }
    }

    /// `yyyyMMddHHmmss` with month 01–12, day 01–31, hour 00–23, minute and second 00–59.
    public static func isDateTime(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in
            guard u.count == 14, u.allSatisfy({ $0 &- 0x30 < 10 }) else { return false }
            return validDay(u) && number(u, 8, 2) < 24 && number(u, 10, 2) < 60 && number(u, 12, 2) < 60
        }
    }

    /// A `yyyyMMdd` number with a four-digit year, month 01–12 and day 01–31.
    public static func isDay(_ v: Int64) -> Bool {
        v >= 1000_01_01 && v <= 9999_12_31 && (1...12).contains(v / 100 % 100) && (1...31).contains(v % 100)
    }

    /// A `yyyyMMdd` number that is a day of the Gregorian calendar: 30 February, 31 April and 29
    /// February of a common year are not. What a filter may name (`DateBound`); import takes `isDay`.
    public static func isCalendarDay(_ v: Int64) -> Bool {
        guard isDay(v) else { return false }
        let year = v / 10000
        let month = v / 100 % 100
        let day = v % 100
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days: Int64 =
            switch month {
            case 2: leap ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        return day <= days
    }

    /// A `yyyyMMddHHmmss` number that is a day and a time of day.
    public static func isDateTime(_ v: Int64) -> Bool {
        let t = v % 1_000_000
        return isDay(v / 1_000_000) && t / 10000 < 24 && t / 100 % 100 < 60 && t % 100 < 60
    }

    @inline(__always) private static func number(_ u: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int {
        var v = 0
        for i in at..<(at + count) { v = v * 10 + Int(u[i] - 0x30) }
        return v
    }

    private static func validDay(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        (1...12).contains(number(u, 4, 2)) && (1...31).contains(number(u, 6, 2))
    }
}
