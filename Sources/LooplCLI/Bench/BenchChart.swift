import Foundation

/// An SVG bar chart of a bench report: decode speed and TTFT per backend, with llama-bench as a
/// dashed line, readable in any browser or image viewer.
enum BenchChart {
    private static let panelWidth = 340.0, panelHeight = 240.0, top = 50.0, left = 20.0

    static func svg(_ report: BenchReport) -> String {
        let names = report.backends.map(\.backend)
        let decode = panel(title: "Decode (tokens/s, higher is better)", names: names,
                           values: report.backends.map(\.decodeTokensPerSecond.median),
                           reference: report.reference?.decodeTokensPerSecond.median, x: left)
        // The engine's own time for the prompt, from llama-bench's prefill speed.
        let engineTTFT = report.reference.map { Double(report.promptTokens) / $0.prefillTokensPerSecond.median * 1000 }
        let ttft = panel(title: "TTFT on \(report.promptTokens) tokens (ms, lower is better)", names: names,
                         values: report.backends.map(\.ttftMs.median), reference: engineTTFT, x: left + panelWidth + 20)
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
}
