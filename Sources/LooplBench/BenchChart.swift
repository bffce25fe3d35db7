import Foundation

/// An SVG chart of a bench report, readable in any browser or image viewer: decode speed and
/// TTFT per backend as bars, with llama-bench as a dashed line; or, with `--concurrency`, the
/// aggregate decode speed against N, one line per backend, llama-batched-bench's dashed.
enum BenchChart {
    private static let panelWidth = 340.0, panelHeight = 240.0, top = 50.0, left = 20.0

    static func svg(_ report: BenchReport) -> String {
        if !report.throughput.isEmpty { return throughput(report) }
        let names = report.backends.map(\.name)
        let decode = panel(title: "Decode (tokens/s, higher is better)", names: names,
                           values: report.backends.map { $0.decodeTokensPerSecond?.median ?? 0 },
                           reference: report.reference?.decodeTokensPerSecond?.median, x: left)
        // The engine's own time for the prompt, from llama-bench's prefill speed.
        let engineTTFT = report.reference?.prefillTokensPerSecond.map { Double(report.promptTokens) / $0.median * 1000 }
        let ttft = panel(title: "TTFT on \(report.promptTokens) tokens (ms, lower is better)", names: names,
                         values: report.backends.map { $0.ttftMs?.median ?? 0 }, reference: engineTTFT, x: left + panelWidth + 20)
        let width = Int(left * 2 + panelWidth * 2 + 20), height = Int(top + panelHeight + 50)
        let caption = "\(report.model), \(report.threads) threads, \(report.cores) cores, llama.cpp \(report.llamaCppVersion), median of \(report.runs) runs"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(left))" y="20" font-size="14" font-weight="bold">loopl bench</text>
            <text x="\(Int(left))" y="36" fill="#555">\(escaped(caption))</text>
            \(decode)
            \(ttft)
            </svg>

            """
    }

    /// One panel: a bar per backend and, when known, the reference as a dashed line.
    private static func panel(title: String, names: [String], values: [Double], reference: Double?, x: Double) -> String {
        let scale = max(values.max() ?? 0, reference ?? 0) * 1.15
        let plotTop = top + 30, plotHeight = panelHeight - 60, baseline = plotTop + plotHeight
        func height(_ value: Double) -> Double { scale > 0 ? value / scale * plotHeight : 0 }
        var parts = ["<g class='panel'>", "<text x='\(format(x))' y='\(format(top + 12))' font-weight='bold'>\(escaped(title))</text>",
                     "<line x1='\(format(x))' y1='\(format(baseline))' x2='\(format(x + panelWidth))' y2='\(format(baseline))' stroke='#999'/>"]
        let slot = panelWidth / Double(max(names.count, 1))
        for (index, (name, value)) in zip(names, values).enumerated() {
            let barX = x + slot * Double(index) + slot * 0.2, barWidth = slot * 0.6, barHeight = height(value), middle = format(barX + barWidth / 2)
            parts.append("<rect class='bar' x='\(format(barX))' y='\(format(baseline - barHeight))' width='\(format(barWidth))' height='\(format(barHeight))' fill='#4a7fc1'/>")
            parts.append("<text x='\(middle)' y='\(format(baseline - barHeight - 4))' text-anchor='middle'>\(String(format: "%.1f", value))</text>")
            parts.append("<text x='\(middle)' y='\(format(baseline + 16))' text-anchor='middle'>\(escaped(name))</text>")
        }
        if let reference {
            let y = baseline - height(reference)
            parts.append("<line class='reference' x1='\(format(x))' y1='\(format(y))' x2='\(format(x + panelWidth))' y2='\(format(y))' stroke='#c14a4a' stroke-dasharray='6 4'/>")
            parts.append("<text x='\(format(x + panelWidth))' y='\(format(y - 4))' text-anchor='end' fill='#c14a4a'>llama-bench \(String(format: "%.1f", reference))</text>")
        }
        parts.append("</g>")
        return parts.joined(separator: "\n")
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("'", with: "&apos;")
    }

    private static let colors = ["#4a7fc1", "#3f9e5a", "#d08a2c", "#8a5cc1", "#4ab0b8", "#b8567a"]

    /// Aggregate decode tokens/s against N: a polyline and a dot per backend, N evenly spaced.
    private static func throughput(_ report: BenchReport) -> String {
        let counts = report.concurrency.isEmpty ? Array(Set(report.throughput.map(\.concurrency))).sorted() : report.concurrency
        let names = report.throughput.map(\.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let width = 640.0, height = 380.0, plotLeft = 70.0, plotTop = top + 20, plotWidth = 420.0, plotHeight = 250.0
        let baseline = plotTop + plotHeight
        let scale = (report.throughput.compactMap(\.decodeTokensPerSecond?.median).max() ?? 0) * 1.15
        func x(_ count: Int) -> Double {
            let index = Double(counts.firstIndex(of: count) ?? 0)
            return counts.count > 1 ? plotLeft + index / Double(counts.count - 1) * plotWidth : plotLeft + plotWidth / 2
        }
        func y(_ value: Double) -> Double { scale > 0 ? baseline - value / scale * plotHeight : baseline }
        var parts = ["<line x1='\(format(plotLeft))' y1='\(format(baseline))' x2='\(format(plotLeft + plotWidth))' y2='\(format(baseline))' stroke='#999'/>",
                     "<line x1='\(format(plotLeft))' y1='\(format(plotTop))' x2='\(format(plotLeft))' y2='\(format(baseline))' stroke='#999'/>",
                     "<text x='\(format(plotLeft + plotWidth / 2))' y='\(format(baseline + 36))' text-anchor='middle'>concurrent streams (N)</text>",
                     "<text x='20' y='\(format(plotTop + plotHeight / 2))' transform='rotate(-90 20 \(format(plotTop + plotHeight / 2)))' text-anchor='middle'>aggregate decode (tokens/s)</text>"]
        for count in counts {
            parts.append("<text x='\(format(x(count)))' y='\(format(baseline + 16))' text-anchor='middle'>\(count)</text>")
        }
        for (index, name) in names.enumerated() {
            let rows = report.throughput.filter { $0.name == name }.sorted { $0.concurrency < $1.concurrency }
            let isReference = name == BenchRow.throughputReference
            let color = isReference ? "#c14a4a" : colors[index % colors.count]
            let points = rows.map { "\(format(x($0.concurrency))),\(format(y($0.decodeTokensPerSecond?.median ?? 0)))" }.joined(separator: " ")
            parts.append("<polyline class='\(isReference ? "reference" : "line")' points='\(points)' fill='none' stroke='\(color)' stroke-width='2'\(isReference ? " stroke-dasharray='6 4'" : "")/>")
            for row in rows {
                parts.append("<circle cx='\(format(x(row.concurrency)))' cy='\(format(y(row.decodeTokensPerSecond?.median ?? 0)))' r='3' fill='\(color)'><title>\(escaped(name)) at \(row.concurrency): \(String(format: "%.1f", row.decodeTokensPerSecond?.median ?? 0)) tokens/s</title></circle>")
            }
            let legendY = plotTop + 10 + Double(index) * 18
            parts.append("<line x1='\(format(plotLeft + plotWidth + 20))' y1='\(format(legendY - 4))' x2='\(format(plotLeft + plotWidth + 40))' y2='\(format(legendY - 4))' stroke='\(color)' stroke-width='2'\(isReference ? " stroke-dasharray='6 4'" : "")/>")
            parts.append("<text x='\(format(plotLeft + plotWidth + 46))' y='\(format(legendY))'>\(escaped(name))</text>")
        }
        let caption = "\(report.model), \(report.threads) threads, \(report.cores) cores, llama.cpp \(report.llamaCppVersion), "
            + "\(report.promptTokens) + \(report.maxTokens) tokens a stream, median of \(report.runs) runs"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(left))" y="20" font-size="14" font-weight="bold">loopl bench --concurrency</text>
            <text x="\(Int(left))" y="36" fill="#555">\(escaped(caption))</text>
            \(parts.joined(separator: "\n"))
            </svg>

            """
    }
}
