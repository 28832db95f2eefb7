/// Draws a simulator run as an SVG timeline so a person can see what the debounce did: the raw
/// fully-visible-card events above (coloured by origin, each with its debounce window drawn until the next
/// event cut it short or it fell due), the selections below (card index and place id), queries and the end
/// of the stream as vertical lines, and a time axis in milliseconds.
///
/// Input: the outputs of a simulator run with `traceVisible` set (without it the upper lane is empty).
public enum TimelineSVG {
    static let left = 70.0, right = 80.0, plotWidth = 900.0, rowMin = 8.0, rowMax = 18.0
    static let colours: [VisibleOrigin: String] = [.user: "#1f77b4", .animation: "#ff7f0e", .reload: "#2ca02c"]

    public static func render(_ outputs: [CarouselOutput], debounce: Int64, title: String = "nearby carousel") -> String
    {
        let raw = outputs.compactMap { o -> (t: Int64, i: Int, origin: VisibleOrigin)? in
            if case .visible(let t, let i, let origin) = o { (t, i, origin) } else { nil }
        }
        let tMin = min(0, outputs.map(\.t).min() ?? 0)
        let tMax = max(outputs.map(\.t).max() ?? 0, (raw.last?.t ?? 0) + debounce, tMin + 1)
        var maxIndex = 0
        for o in outputs {
            switch o {
            case .visible(_, let i, _), .selected(_, let i, _, _, _): maxIndex = max(maxIndex, i)
            default: break
            }
        }
        let rows = maxIndex + 1
        let rowH = min(rowMax, max(rowMin, 220 / Double(rows)))
        let laneH = Double(rows) * rowH
        let top = 64.0
        let gap = 44.0
        let upper = top
        let lower = top + laneH + gap
        let axis = lower + laneH + 14
        let height = axis + 40
        let width = left + plotWidth + right
        func x(_ t: Int64) -> Double { left + Double(t - tMin) / Double(tMax - tMin) * plotWidth }
        func y(_ lane: Double, _ i: Int) -> Double { lane + (Double(min(max(i, 0), maxIndex)) + 0.5) * rowH }

        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" \
            viewBox="0 0 \(f(width)) \(f(height))" font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(left))" y="20" font-size="14" font-weight="bold">\(xml(title)) — debounce \(debounce) ms</text>

            """
        // Legend.
        var lx = left
        for (origin, label) in [(VisibleOrigin.user, "swipe"), (.animation, "tap animation"), (.reload, "new list")] {
            s += "<circle cx=\"\(f(lx + 5))\" cy=\"38\" r=\"4\" fill=\"\(colours[origin]!)\"/>"
            s += "<text x=\"\(f(lx + 13))\" y=\"42\">\(label)</text>\n"
            lx += 20 + Double(label.count) * 6.5
        }
        s +=
            "<line x1=\"\(f(lx))\" y1=\"38\" x2=\"\(f(lx + 24))\" y2=\"38\" stroke=\"#999\" stroke-width=\"3\" opacity=\"0.5\"/>"
        s += "<text x=\"\(f(lx + 30))\" y=\"42\">debounce window</text>\n"
        lx += 140
        s +=
            "<rect x=\"\(f(lx))\" y=\"34\" width=\"8\" height=\"8\" fill=\"#222\" transform=\"rotate(45 \(f(lx + 4)) 38)\"/>"
        s += "<text x=\"\(f(lx + 14))\" y=\"42\">selected marker</text>\n"

        // Lanes with their row labels.
        for (lane, name) in [(upper, "visible index (raw)"), (lower, "selected (debounce → distinct)")] {
            s +=
                "<rect x=\"\(f(left))\" y=\"\(f(lane))\" width=\"\(f(plotWidth))\" height=\"\(f(laneH))\" fill=\"#f6f6f6\" stroke=\"#ccc\"/>\n"
            s += "<text x=\"\(f(left))\" y=\"\(f(lane - 5))\" font-weight=\"bold\">\(name)</text>\n"
            let every = rowH >= 11 ? 1 : Int((11 / rowH).rounded(.up))
            for i in stride(from: 0, through: maxIndex, by: every) {
                s +=
                    "<text x=\"\(f(left - 6))\" y=\"\(f(y(lane, i) + 4))\" text-anchor=\"end\" fill=\"#666\">\(i)</text>\n"
            }
        }

        // Time axis.
        let step = niceStep(Double(tMax - tMin) / 10)
        var tick = (Double(tMin) / step).rounded(.up) * step
        while tick <= Double(tMax) {
            let tx = x(Int64(tick))
            s += "<line x1=\"\(f(tx))\" y1=\"\(f(upper))\" x2=\"\(f(tx))\" y2=\"\(f(axis))\" stroke=\"#e2e2e2\"/>"
            s += "<text x=\"\(f(tx))\" y=\"\(f(axis + 14))\" text-anchor=\"middle\">\(Int64(tick))</text>\n"
            tick += step
        }
        s +=
            "<line x1=\"\(f(left))\" y1=\"\(f(axis))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(axis))\" stroke=\"#333\"/>"
        s += "<text x=\"\(f(left + plotWidth + 8))\" y=\"\(f(axis + 4))\">t (ms)</text>\n"

        // Raw events and their debounce windows (cut short by the next event or the end of the stream).
        let streamEnd =
            outputs.lazy.compactMap { o -> Int64? in
                switch o {
                case .completed(let t), .failed(let t, _): t
                default: nil
                }
            }.first ?? Int64.max
        for (k, e) in raw.enumerated() {
            let next = min(k + 1 < raw.count ? raw[k + 1].t : Int64.max, streamEnd)
            let end = min(next, e.t + debounce)
            if end > e.t {
                s +=
                    "<line x1=\"\(f(x(e.t)))\" y1=\"\(f(y(upper, e.i)))\" x2=\"\(f(x(end)))\" y2=\"\(f(y(upper, e.i)))\" stroke=\"\(colours[e.origin]!)\" stroke-width=\"3\" opacity=\"0.35\"/>\n"
            }
            s +=
                "<circle cx=\"\(f(x(e.t)))\" cy=\"\(f(y(upper, e.i)))\" r=\"3.5\" fill=\"\(colours[e.origin]!)\"><title>t=\(e.t) visible \(e.i) (\(e.origin.rawValue))</title></circle>\n"
        }

        // Selections, drops, queries and the end of the stream. A selection's label is left out (its
        // tooltip stays) when it would overlap the previous label on its row.
        var labelEnd = [Int: Double]()
        for o in outputs {
            switch o {
            case .selected(let t, let i, let id, let lat, let lon):
                let cx = x(t)
                let cy = y(lower, i)
                s +=
                    "<line x1=\"\(f(cx))\" y1=\"\(f(upper + laneH))\" x2=\"\(f(cx))\" y2=\"\(f(cy))\" stroke=\"#222\" stroke-dasharray=\"2 3\" opacity=\"0.5\"/>"
                s +=
                    "<rect x=\"\(f(cx - 4))\" y=\"\(f(cy - 4))\" width=\"8\" height=\"8\" fill=\"#222\" transform=\"rotate(45 \(f(cx)) \(f(cy)))\"><title>t=\(t) selected \(i) \(xml(id)) camera \(lat), \(lon)</title></rect>"
                let label = "\(i) · \(id)"
                if cx + 8 >= labelEnd[i, default: -.infinity] {
                    s += "<text x=\"\(f(cx + 8))\" y=\"\(f(cy + 4))\">\(xml(label))</text>"
                    labelEnd[i] = cx + 12 + Double(label.count) * 6.5
                }
                s += "\n"
            case .dropped(let t, let i, let reason):
                let cx = x(t)
                let cy = lower + 10
                s +=
                    "<text x=\"\(f(cx))\" y=\"\(f(cy + 4))\" text-anchor=\"middle\" fill=\"#d62728\" font-weight=\"bold\">×<title>t=\(t) dropped \(i): \(xml(reason))</title></text>"
                s += "<text x=\"\(f(cx + 7))\" y=\"\(f(cy + 4))\" fill=\"#d62728\">drop \(i)</text>\n"
            case .query(let t, _, _, _, let results):
                s += verticalMark(x(t), upper, axis, "#9467bd", "query → \(results.count)")
            case .queryFailed(let t, _, _, _):
                s += verticalMark(x(t), upper, axis, "#d62728", "query failed")
            case .completed(let t):
                s += verticalMark(x(t), upper, axis, "#333", "complete")
            case .failed(let t, _):
                s += verticalMark(x(t), upper, axis, "#d62728", "error")
            case .visible:
                break
            }
        }
        return s + "</svg>\n"
    }

    static func verticalMark(_ x: Double, _ top: Double, _ bottom: Double, _ colour: String, _ label: String) -> String
    {
        "<line x1=\"\(f(x))\" y1=\"\(f(top - 14))\" x2=\"\(f(x))\" y2=\"\(f(bottom))\" stroke=\"\(colour)\" stroke-dasharray=\"5 3\"/>"
            + "<text x=\"\(f(x + 3))\" y=\"\(f(top - 16))\" fill=\"\(colour)\">\(xml(label))</text>\n"
    }

    /// 1, 2 or 5 × 10ⁿ, at least `raw` (and at least 1 ms).
    static func niceStep(_ raw: Double) -> Double {
        var p = 1.0
        while p * 10 <= raw { p *= 10 }
        for m in [1.0, 2, 5, 10] where m * p >= raw { return m * p }
        return 10 * p
    }

    static func f(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
