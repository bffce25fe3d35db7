import Foundation
import Loopl

/// One server that requests go to: the child, or one of the attached URLs, with what the host
/// keeps about it: what its probe found, its slots, the requests in flight, and its failures.
struct Upstream {
    /// The attached server's URL; nil for the child.
    let url: URL?
    /// What the server said about itself; nil before it answered, and after it failed.
    var info: ServerInfo?
    /// A child's slots as the host hands them out; nil when attached.
    var slots: SlotTable?
    /// Counts the servers behind it: a new child, a replica that answers again.
    var epoch = 0
    /// Its requests at once: `parallel`, or fewer when the server has fewer slots.
    let places: RequestQueue
    /// Requests that chose it and have not ended.
    var inFlight = 0
    /// When a request last chose it, for ties.
    var lastChosen: UInt64 = 0
    /// Failures in a row; each doubles the back-off.
    var failures = 0
    /// Until when it is skipped.
    var retryAt: ContinuousClock.Instant?
    /// A probe under way, which callers that arrive meanwhile share.
    var probing: Task<ServerInfo, any Error>?

    init(url: URL?, parallel: Int) {
        self.url = url
        places = RequestQueue(parallel: parallel)
    }

    /// False while it waits out a back-off.
    func isReady(at now: ContinuousClock.Instant) -> Bool {
        retryAt.map { $0 <= now } ?? true
    }

    /// The server answered: a child's slots start empty, and its places follow its slot count.
    mutating func connected(_ info: ServerInfo, parallel: Int) {
        self.info = info
        epoch += 1
        failures = 0
        retryAt = nil
        if url == nil { slots = SlotTable(count: info.slots ?? parallel) }
        places.setParallel(min(parallel, info.slots ?? parallel))
    }

    /// The server is gone (a child that died or was stopped): the next request connects again.
    mutating func lost() {
        info = nil
        slots = nil
    }

    /// A replica refused a connection, failed its health check or broke off an answer: it is
    /// skipped for `backoff`, doubled for each failure in a row up to 32 times, and then probed again.
    mutating func failed(backoff: Duration, now: ContinuousClock.Instant = .now) {
        lost()
        failures += 1
        retryAt = now + backoff * (1 << min(failures - 1, 5))
    }
}

extension [Upstream] {
    /// The server for the next request: the conversation's `home` while it is ready; otherwise,
    /// of those not skipped and not waiting out a back-off (or, when all are, of all those not
    /// skipped), the one with the fewest requests in flight, the least recently chosen on a tie.
    func choose(home: Int?, skipping: Set<Int>, now: ContinuousClock.Instant) -> Int? {
        let open = indices.filter { !skipping.contains($0) }
        let ready = open.filter { self[$0].isReady(at: now) }
        if let home, ready.contains(home) { return home }
        return (ready.isEmpty ? open : ready).min {
            (self[$0].inFlight, self[$0].lastChosen) < (self[$1].inFlight, self[$1].lastChosen)
        }
    }
}
