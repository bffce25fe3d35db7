/// A Prometheus histogram: how many observations fell at or below each bound, their sum and count.
struct Histogram: Sendable {
    /// The upper bounds of the buckets, ascending; `+Inf` is implied.
    let bounds: [Double]
    /// Observations at or below each bound (cumulative, as Prometheus reads them).
    private(set) var cumulative: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        cumulative = Array(repeating: 0, count: bounds.count)
    }

    /// Counts `value`; a value that is not finite is left out.
    mutating func observe(_ value: Double) {
        guard value.isFinite else { return }
        for (index, bound) in bounds.enumerated() where value <= bound { cumulative[index] += 1 }
        sum += value
        count += 1
    }

    /// Seconds to the first token: 10 ms to 1 min.
    static var timeToFirstToken: Histogram {
        Histogram(bounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])
    }

    /// Tokens per second while decoding: 1 to 1000.
    static var decodeSpeed: Histogram {
        Histogram(bounds: [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000])
    }
}
