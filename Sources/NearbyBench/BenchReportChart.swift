import Foundation
import NearbyKit

/// A line chart written as a plain SVG string (no dependencies), for BENCHMARKS.md's pictures.
///
/// Axes are linear or base-10 logarithmic; the y ticks are chosen automatically (1-2-5 steps),
/// the x ticks are given by the caller (dataset sizes, radii) so they sit on measured points.
/// Every point carries a `<title>` so hovering it in a browser shows the exact value.
public struct BenchReportChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        public var points: [(x: Double, y: Double)]
        public var dashed: Bool
        /// Palette index; nil uses the series' position. Equal colours pair series (p50 of two engines).
        public var colour: Int?
        public init(name: String, points: [(x: Double, y: Double)], dashed: Bool = false, colour: Int? = nil) {
            self.name = name
            self.points = points
            self.dashed = dashed
            self.colour = colour
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var xTicks: [(value: Double, label: String)]
    public var logX: Bool
    public var logY: Bool
    public var series: [Series]
    /// Formats a y value for tick labels and point titles.
    public var yFormat: @Sendable (Double) -> String

    public init(
        title: String, xLabel: String, yLabel: String, xTicks: [(value: Double, label: String)],
        logX: Bool, logY: Bool, series: [Series],
        yFormat: @escaping @Sendable (Double) -> String = BenchReportChart.compact
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.xTicks = xTicks
        self.logX = logX
        self.logY = logY
        self.series = series
        self.yFormat = yFormat
    }

    /// Colour-blind-safe palette (Okabe & Ito, 2008).
    public static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
    public static let width = 760.0, height = 440.0
    public static let left = 84.0, right = 200.0, top = 52.0, bottom = 64.0

    /// The chart as a standalone SVG document.
    public func svg() -> String {
        let plotW = Self.width - Self.left - Self.right
        let plotH = Self.height - Self.top - Self.bottom
        let xs = series.flatMap { $0.points.map(\.x) } + xTicks.map(\.value)
        let ys = series.flatMap { $0.points.map(\.y) }.filter { !logY || $0 > 0 }
        guard let xMin = xs.min(), let xMax = xs.max(), let yLow = ys.min(), let yHigh = ys.max() else {
            return wrap(text(Self.width / 2, Self.height / 2, "no data", anchor: "middle"))
        }
        let yTicks = Self.ticks(low: yLow, high: yHigh, log: logY)
        let (yMin, yMax) = (min(yLow, yTicks.first ?? yLow), max(yHigh, yTicks.last ?? yHigh))
        func scale(_ v: Double, _ lo: Double, _ hi: Double, log: Bool) -> Double {
            let (a, b, c) = log ? (log10(v), log10(lo), log10(hi)) : (v, lo, hi)
            return c == b ? 0.5 : (a - b) / (c - b)
        }
        func px(_ x: Double) -> Double { Self.left + plotW * scale(x, xMin, xMax, log: logX) }
        func py(_ y: Double) -> Double { Self.top + plotH * (1 - scale(y, yMin, yMax, log: logY)) }

        var body = text(
            Self.width / 2 - (Self.right - Self.left) / 2, 28, title, anchor: "middle", size: 17, weight: "bold")
        // Grid and y ticks.
        for t in yTicks {
            let y = py(t)
            body += line(Self.left, y, Self.left + plotW, y, stroke: "#dddddd")
            body += text(Self.left - 8, y + 4, yFormat(t), anchor: "end")
        }
        for t in xTicks {
            let x = px(t.value)
            body += line(x, Self.top, x, Self.top + plotH, stroke: "#eeeeee")
            body += text(x, Self.top + plotH + 20, t.label, anchor: "middle")
        }
        body +=
            "<rect x=\"\(f(Self.left))\" y=\"\(f(Self.top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#444444\"/>\n"
        body += text(Self.left + plotW / 2, Self.height - 16, xLabel, anchor: "middle", size: 14)
        body +=
            "<text x=\"18\" y=\"\(f(Self.top + plotH / 2))\" font-size=\"14\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(f(Self.top + plotH / 2)))\">\(Self.escape(yLabel))</text>\n"
        // Series and legend.
        for (i, s) in series.enumerated() {
            let colour = Self.palette[(s.colour ?? i) % Self.palette.count]
            let dash = s.dashed ? " stroke-dasharray=\"7 4\"" : ""
            let pts = s.points.filter { !logY || $0.y > 0 }.sorted { $0.x < $1.x }
            let path = pts.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
            body += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\"\(dash)/>\n"
            for p in pts {
                body +=
                    "<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"4\" fill=\"\(colour)\"><title>\(Self.escape(s.name)): \(yFormat(p.y))</title></circle>\n"
            }
            let ly = Self.top + 12 + Double(i) * 24
            let lx = Self.width - Self.right + 16
            body +=
                "<line x1=\"\(f(lx))\" y1=\"\(f(ly))\" x2=\"\(f(lx + 28))\" y2=\"\(f(ly))\" stroke=\"\(colour)\" stroke-width=\"2.5\"\(dash)/>\n"
            body += text(lx + 36, ly + 4, s.name, anchor: "start")
        }
        return wrap(body)
    }

    private func wrap(_ body: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" \
        viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="#ffffff"/>
        \(body)</svg>

        """
    }

    private func text(_ x: Double, _ y: Double, _ s: String, anchor: String, size: Int = 12, weight: String = "normal")
        -> String
    {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size)\" font-weight=\"\(weight)\">\(Self.escape(s))</text>\n"
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(stroke)\"/>\n"
    }

    private func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Y ticks covering [low, high]: powers of ten (with 2 and 5 between when the range spans under
    /// three decades) on a log axis, 1-2-5 steps giving about six ticks on a linear one.
    public static func ticks(low: Double, high: Double, log: Bool) -> [Double] {
        if log {
            let a = Int(floor(log10(low)))
            let b = Int(ceil(log10(high)))
            let steps: [Double] = b - a < 3 ? [1, 2, 5] : [1]
            var t: [Double] = []
            for e in a...b { for m in steps { t.append(m * pow(10, Double(e))) } }
            // Keep one tick at or below low and one at or above high.
            let lo = t.last { $0 <= low } ?? t[0]
            let hi = t.first { $0 >= high } ?? t[t.count - 1]
            return t.filter { $0 >= lo && $0 <= hi }
        }
        let lo = min(0, low)
        let span = max(high - lo, 1e-12)
        let raw = span / 6
        let mag = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * mag }.first { $0 >= raw } ?? 10 * mag
        return stride(from: (lo / step).rounded(.down) * step, through: high + step * 0.999, by: step).map { $0 }
    }

    /// 0.5, 12, 3.4k, 1.2M: short labels for ticks.
    public static let compact: @Sendable (Double) -> String = { v in
        let a = abs(v)
        if a >= 1e6 { return trim(v / 1e6) + "M" }
        if a >= 1e3 { return trim(v / 1e3) + "k" }
        return trim(v)
    }

    public static func trim(_ v: Double) -> String {
        let s =
            abs(v) >= 100 || v == v.rounded()
            ? String(format: "%.0f", v) : (abs(v) >= 10 ? String(format: "%.1f", v) : String(format: "%.2g", v))
        return s
    }

    public static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
