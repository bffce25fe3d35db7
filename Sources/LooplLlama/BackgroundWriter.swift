import Foundation

/// Work done in order on a thread of its own at a low CPU priority (nice 10): file writes
/// that must not take the cores from the decode threads, which wait for one another at every
/// step and all stall when one of them is pushed off its core.
final class BackgroundWriter: @unchecked Sendable {
    // `work` and `busy` are guarded by `condition`.
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var busy = false

    /// `name`: at most 15 bytes (``Foundation/Thread/start(named:_:)``).
    init(name: String) {
        Thread.start(named: name) { [self] in serve() }
    }

    /// Queues `item` after the work already queued.
    func async(_ item: @escaping @Sendable () -> Void) {
        condition.lock()
        work.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until everything queued so far is done.
    func sync() {
        condition.lock()
        while !work.isEmpty || busy { condition.wait() }
        condition.unlock()
    }

    private func serve() {
        // On Linux, 0 is the calling thread alone.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        while true {
            condition.lock()
            while work.isEmpty { condition.wait() }
            let item = work.removeFirst()
            busy = true
            condition.unlock()
            item()
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
