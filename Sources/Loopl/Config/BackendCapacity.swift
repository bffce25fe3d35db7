/// How many requests a backend serves at once (`parallel`) and how many more may wait for a
/// place (`maxQueue`), as its section sets them: the one admission setting of every kind.
package struct BackendCapacity: Sendable, Hashable {
    package var parallel: Int
    package var maxQueue: Int

    package init(parallel: Int = 4, maxQueue: Int = 64) {
        self.parallel = parallel
        self.maxQueue = maxQueue
    }

    /// Reads `parallel` and `maxQueue` from `section` over `defaults`, checked: `parallel` within
    /// `range` (the kind's own bound), `maxQueue` 0 or more.
    package static func read(from section: inout ConfigSection, defaults: BackendCapacity = BackendCapacity(),
                            range: ClosedRange<Int> = 1...1024) throws -> BackendCapacity {
        var capacity = defaults
        try section.read("parallel", into: &capacity.parallel)
        try section.read("maxQueue", into: &capacity.maxQueue)
        guard range.contains(capacity.parallel) else {
            throw section.error("'parallel' must be from \(range.lowerBound) to \(range.upperBound), the requests served at once")
        }
        guard capacity.maxQueue >= 0 else { throw section.error("'maxQueue' must be 0 or more") }
        return capacity
    }
}
