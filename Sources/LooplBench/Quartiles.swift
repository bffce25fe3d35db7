import Loopl

/// The first quartile, median and third quartile of a series, interpolated linearly between
/// the nearest ranks (numpy's default): a ratio's median and, with ``iqr``, how far its rounds spread.
struct Quartiles: Sendable, Equatable, Codable {
    let q1: Double, median: Double, q3: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        q1 = Self.percentile(sorted: sorted, 25)
        median = Self.percentile(sorted: sorted, 50)
        q3 = Self.percentile(sorted: sorted, 75)
    }

    /// The interquartile range: where the middle half of the rounds fall.
    var iqr: Double { q3 - q1 }

    /// The per-round ratios `numerators[i] / denominators[i]` of two series measured round by
    /// round, over the rounds both have; nil when they share none.
    static func ofRatios(_ numerators: [Double], _ denominators: [Double]) -> Quartiles? {
        Quartiles(zip(numerators, denominators).compactMap { $1 > 0 ? $0 / $1 : nil })
    }

    /// The `percent` percentile (0 to 100) of `values`, interpolated linearly; nil when empty.
    static func percentile(_ values: [Double], _ percent: Double) -> Double? {
        values.isEmpty ? nil : percentile(sorted: values.sorted(), percent)
    }

    private static func percentile(sorted: [Double], _ percent: Double) -> Double {
        let rank = Double(sorted.count - 1) * min(max(percent, 0), 100) / 100
        let below = Int(rank.rounded(.down)), above = min(below + 1, sorted.count - 1)
        return sorted[below] + (rank - Double(below)) * (sorted[above] - sorted[below])
    }
}
