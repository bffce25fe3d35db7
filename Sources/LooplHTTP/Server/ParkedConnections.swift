import Glibc

/// The connections that the accept thread holds without a thread of their own: open, and no byte
/// yet. Each gets a thread when its first byte (or its hang-up) comes; one closed to make room,
/// or past its first-byte limit, costs only a `close`. So a flood of silent sockets costs the
/// server no threads.
struct ParkedConnections {
    /// A parked connection: its socket and when it was accepted.
    struct Entry {
        let fd: Int32
        let opened: ContinuousClock.Instant
    }

    private(set) var entries: [Int: Entry] = [:]

    /// Parks `fd`, counted in as `id`.
    mutating func park(_ id: Int, fd: Int32, opened: ContinuousClock.Instant) {
        entries[id] = Entry(fd: fd, opened: opened)
    }

    /// Takes `id` out (to hand to a thread, or to close); nil when it is not parked.
    mutating func take(_ id: Int) -> Entry? { entries.removeValue(forKey: id) }

    /// Closes `id` when it is parked; true when it was.
    mutating func close(_ id: Int) -> Bool {
        guard let entry = take(id) else { return false }
        Glibc.close(entry.fd)
        return true
    }

    /// The parked connections in a fixed order, for one poll.
    var ordered: [(id: Int, entry: Entry)] { entries.map { ($0.key, $0.value) } }

    /// When the oldest one reaches `limit` without a byte.
    func nextDeadline(limit: Duration) -> ContinuousClock.Instant? {
        entries.values.map(\.opened).min().map { $0 + limit }
    }
}
