/// Cuts streamed text at the first stop string, holding back any tail that could still begin one,
/// so that no part of a stop string ever reaches the caller.
package struct StopStringFilter: Sendable {
    package let stops: [String]
    private var pending = ""
    /// True once a stop string has appeared; later input is ignored.
    package private(set) var stopped = false

    package init(stops: [String]) {
        self.stops = stops.filter { !$0.isEmpty }
    }

    /// Adds `delta` and returns the text that is now safe to show.
    package mutating func feed(_ delta: String) -> String {
        guard !stopped else { return "" }
        pending += delta
        if stops.isEmpty { defer { pending = "" }; return pending }
        var cut: String.Index?
        for stop in stops {
            if let range = pending.firstRange(of: stop), cut.map({ range.lowerBound < $0 }) ?? true {
                cut = range.lowerBound
            }
        }
        if let cut {
            stopped = true
            defer { pending = "" }
            return String(pending[..<cut])
        }
        let keep = stops.map { heldBackCount(for: $0) }.max() ?? 0
        let safeEnd = pending.index(pending.endIndex, offsetBy: -keep)
        let safe = String(pending[..<safeEnd])
        pending = String(pending[safeEnd...])
        return safe
    }

    /// Returns what is still held back, at the end of the stream.
    package mutating func flush() -> String {
        defer { pending = "" }
        return stopped ? "" : pending
    }

    /// The length of the longest suffix of `pending` that is a proper prefix of `stop`.
    private func heldBackCount(for stop: String) -> Int {
        var length = min(stop.count - 1, pending.count)
        while length > 0 {
            if stop.hasPrefix(pending.suffix(length)) { return length }
            length -= 1
        }
        return 0
    }
}
