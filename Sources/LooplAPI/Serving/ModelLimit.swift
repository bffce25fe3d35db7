import Loopl

/// The per-model limit of `loopl serve`: how many requests run on one backend at once through the
/// server (its `maxConcurrent`, else its `parallel`), and how many wait for a place in arrival
/// order (its `maxQueue`); one more is refused with `busy` (429 with `Retry-After`).
package struct ModelLimit: Sendable {
    /// The backend it limits.
    let backend: String
    /// The requests run at once; nil for a backend of a kind without `parallel` (no limit).
    let capacity: BackendCapacity?
    private let queue: RequestQueue

    init(backend: String, capacity: BackendCapacity?) {
        self.backend = backend
        self.capacity = capacity
        queue = capacity.map { RequestQueue(parallel: $0.parallel, maxQueue: $0.maxQueue) } ?? RequestQueue(parallel: .max, maxQueue: 0)
    }

    /// The requests running now.
    var running: Int { queue.running }
    /// The requests waiting for a place.
    var waiting: Int { queue.waiting }

    /// Runs `body` in a place of its own, after those ahead of it; throws `busy`, naming the
    /// backend and its limits, when the queue is full.
    func withPlace<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { try await queue.acquire() } catch let error as LooplError where error.code == .busy {
            let capacity = capacity ?? BackendCapacity(parallel: 0, maxQueue: 0)
            throw LooplError(.busy, "The model '\(backend)' is serving \(capacity.parallel) requests (maxConcurrent) and \(capacity.maxQueue) are waiting (maxQueue): try again later.")
        }
        defer { queue.release() }
        return try await body()
    }
}
