import Foundation

/// Prometheus's text exposition format (version 0.0.4): metric families with their `# HELP` and
/// `# TYPE` lines, then their samples, labels escaped.
struct PrometheusText {
    /// The `Content-Type` of the text.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    /// Starts the family `name` of `type` (`counter`, `gauge`, `histogram`) described by `help`.
    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// One sample of `name` with `labels`, in their order.
    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        let rendered = labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        text += "\(name)\(rendered) \(Self.number(value))\n"
    }

    /// The samples of `histogram` under `name`: its buckets, `+Inf`, sum and count.
    mutating func histogram(_ name: String, _ labels: [(String, String)], _ histogram: Histogram) {
        for (bound, count) in zip(histogram.bounds, histogram.cumulative) {
            sample(name + "_bucket", labels + [("le", Self.number(bound))], Double(count))
        }
        sample(name + "_bucket", labels + [("le", "+Inf")], Double(histogram.count))
        sample(name + "_sum", labels, histogram.sum)
        sample(name + "_count", labels, Double(histogram.count))
    }

    /// A whole number without a fraction, others as Swift writes them; `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
