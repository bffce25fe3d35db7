import Loopl

/// One measured run of one backend: prompt processing and generation speeds.
struct BenchSample: Sendable {
    var startupMs: Double?
    var ttftMs: Double
    var prefillTokensPerSecond: Double
    var decodeTokensPerSecond: Double
}

/// Min, median and max of a series.
struct Spread: Sendable {
    let min: Double, median: Double, max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        min = sorted[0]
        max = sorted[sorted.count - 1]
        median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var json: JSONValue { ["min": .double(min), "median": .double(median), "max": .double(max)] }
}
