/// The open connections and the rule by which a full server takes a new one. A connection is
/// idle while it waits for a request's first byte (just opened, or kept alive after an answer)
/// and busy from that byte until its answer is sent. At the limit a new connection closes the one
/// idle longest; a busy one is never closed, and when every one is busy the new one is refused.
/// Times are given, never read, so that the rule is tested without a clock.
package struct ConnectionTable: Sendable {
    /// The most connections open at once.
    package let capacity: Int
    /// The idle connections, with the time each became idle.
    private var idle: [Int: ContinuousClock.Instant] = [:]
    /// The connections whose request is in flight.
    private var busy: Set<Int> = []
    /// The last number given.
    private var lastID = 0

    /// An empty table for at most `capacity` connections.
    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The number of connections open.
    package var count: Int { idle.count + busy.count }

    /// Whether three quarters of the capacity or more are open: idle connections then get a shorter limit.
    package var isUnderPressure: Bool { count * 4 >= capacity * 3 }

    /// Whether `id` is open (false once it was closed to make room).
    package func contains(_ id: Int) -> Bool { idle[id] != nil || busy.contains(id) }

    /// Whether `id` is open and idle.
    package func isIdle(_ id: Int) -> Bool { idle[id] != nil }

    /// Counts a connection in at `now`, busy when its first byte has already arrived: its number,
    /// and the connection to close for it (the one idle longest) when the table was full; nil when
    /// every open connection is busy.
    package mutating func open(now: ContinuousClock.Instant, busy startsBusy: Bool = false) -> (id: Int, closing: Int?)? {
        var closing: Int?
        if count >= capacity {
            guard let oldest = idle.min(by: { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) })?.key else { return nil }
            idle[oldest] = nil
            closing = oldest
        }
        lastID += 1
        if startsBusy { busy.insert(lastID) } else { idle[lastID] = now }
        return (lastID, closing)
    }

    /// Marks `id` busy (its request's first byte came); false when it was closed to make room.
    package mutating func begin(_ id: Int) -> Bool {
        guard busy.contains(id) || idle.removeValue(forKey: id) != nil else { return false }
        busy.insert(id)
        return true
    }

    /// Marks `id` idle from `now` (its answer is sent and it is kept alive).
    package mutating func rest(_ id: Int, now: ContinuousClock.Instant) {
        guard busy.remove(id) != nil else { return }
        idle[id] = now
    }

    /// Counts `id` out.
    package mutating func remove(_ id: Int) {
        idle[id] = nil
        busy.remove(id)
    }
}
