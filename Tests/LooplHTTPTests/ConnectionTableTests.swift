import LooplHTTP
import Testing

/// The rule by which a full server takes a new connection, on given times (no clock).
@Suite struct ConnectionTableTests {
    let start = ContinuousClock.now

    func at(_ seconds: Int) -> ContinuousClock.Instant { start + .seconds(seconds) }

    /// Opens a connection at `seconds`: its number and the one closed for it; (-1, nil) when refused.
    func open(_ table: inout ConnectionTable, at seconds: Int, busy: Bool = false) -> (id: Int, closing: Int?) {
        table.open(now: at(seconds), busy: busy) ?? (-1, nil)
    }

    @Test func aFullTableClosesTheConnectionIdleLongest() {
        var table = ConnectionTable(capacity: 3)
        let kept = open(&table, at: 0)
        let began = table.begin(kept.id)
        #expect(began)
        table.rest(kept.id, now: at(5))       // answered at 5, kept alive
        let silent = open(&table, at: 2)
        let later = open(&table, at: 3)
        #expect([kept.closing, silent.closing, later.closing] == [nil, nil, nil])
        let next = open(&table, at: 6)
        #expect(next.closing == silent.id, "the one open without a byte since 2 idles longest")
        #expect(!table.contains(silent.id))
        let late = table.begin(silent.id)
        #expect(!late, "a closed connection's first byte comes too late")
        #expect(open(&table, at: 7).closing == later.id)
        #expect(open(&table, at: 8).closing == kept.id)
        #expect(table.count == 3)
    }

    @Test func aBusyConnectionIsNeverClosed() {
        var table = ConnectionTable(capacity: 2)
        let busy = open(&table, at: 0, busy: true)
        let idle = open(&table, at: 1)
        let second = open(&table, at: 2)
        #expect(second.closing == idle.id)
        let third = open(&table, at: 2)
        #expect(third.closing == second.id)
        let began = table.begin(third.id)
        #expect(began)
        let refused = open(&table, at: 3)
        #expect(refused.id == -1, "every connection busy: the new one is refused")
        #expect(table.contains(busy.id) && table.contains(third.id))
    }

    /// A long mixed run: connections open, begin, rest and leave in a fixed pseudo-random order;
    /// a busy connection is never the one closed, and an idle one is closed only when the table is full.
    @Test func noConnectionInFlightIsEverClosed() {
        var table = ConnectionTable(capacity: 16)
        var busy: Set<Int> = []
        var open: [Int] = []
        var seed: UInt64 = 42
        var closed = 0
        for step in 0..<20_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let now = at(step)
            switch (seed >> 33) % 4 {
            case 0, 1:
                let wasFull = table.count == table.capacity
                guard let (id, closing) = table.open(now: now, busy: (seed >> 40) % 3 == 0) else {
                    #expect(busy.count == table.capacity)
                    continue
                }
                if let closing {
                    closed += 1
                    #expect(wasFull && !busy.contains(closing))
                    open.removeAll { $0 == closing }
                }
                if !table.isIdle(id) { busy.insert(id) }
                open.append(id)
            case 2 where !open.isEmpty:
                let id = open[Int((seed >> 20) % UInt64(open.count))]
                if busy.contains(id) {
                    table.rest(id, now: now)
                    busy.remove(id)
                } else if table.begin(id) {
                    busy.insert(id)
                }
            default:
                guard let id = open.popLast() else { continue }
                table.remove(id)
                busy.remove(id)
            }
            #expect(busy.allSatisfy { table.contains($0) })
            #expect(table.count == open.count)
        }
        #expect(closed > 100, "the run filled the table often")
    }

    @Test func pressureBeginsAtThreeQuarters() {
        var table = ConnectionTable(capacity: 8)
        for second in 0..<5 { _ = open(&table, at: second) }
        #expect(!table.isUnderPressure)
        _ = open(&table, at: 5)
        #expect(table.isUnderPressure)
    }
}
