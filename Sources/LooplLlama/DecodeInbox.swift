import Foundation

/// Where requests wait for the decode loop's thread to take them, and how the loop is told to stop.
final class DecodeInbox: @unchecked Sendable {
    /// A request and what its caller awaits: resumed once it has ended or failed.
    struct Arrival {
        let request: LlamaRequest
        let completion: CheckedContinuation<Void, any Error>
    }

    // Every property below is read and written under `condition`'s lock.
    private let condition = NSCondition()
    private var arrivals: [Arrival] = []
    private var stopping = false
    private var stopped = false
    private var closers: [CheckedContinuation<Void, Never>] = []
    private var stepObserver: (@Sendable (LlamaModel.Step) -> Void)?

    /// Hands `arrival` to the loop; false once it stops.
    func push(_ arrival: Arrival) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        arrivals.append(arrival)
        condition.signal()
        return true
    }

    /// The requests that arrived since the last call, waiting for one when `wait` is true, and
    /// the step observer; nil once the loop is to stop.
    func take(wait: Bool) -> (arrivals: [Arrival], observer: (@Sendable (LlamaModel.Step) -> Void)?)? {
        condition.lock()
        defer { condition.unlock() }
        while wait, arrivals.isEmpty, !stopping { condition.wait() }
        guard !stopping else { return nil }
        defer { arrivals = [] }
        return (arrivals, stepObserver)
    }

    func observe(_ observer: (@Sendable (LlamaModel.Step) -> Void)?) {
        condition.lock()
        stepObserver = observer
        condition.unlock()
    }

    /// Tells the loop to stop, without waiting for it.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Tells the loop to stop and waits until it has.
    func close() async {
        await withCheckedContinuation { (closer: CheckedContinuation<Void, Never>) in
            condition.lock()
            stopping = true
            condition.signal()
            if stopped {
                condition.unlock()
                closer.resume()
            } else {
                closers.append(closer)
                condition.unlock()
            }
        }
    }

    /// Called by the loop as it ends: fails the requests it never took with `error`, then lets
    /// the closers go on.
    func finish(failing error: any Error) {
        condition.lock()
        stopped = true
        let left = arrivals
        let waiting = closers
        arrivals = []
        closers = []
        condition.unlock()
        for arrival in left { arrival.completion.resume(throwing: error) }
        for closer in waiting { closer.resume() }
    }
}
