import Foundation

/// A serial executor that runs every job on one thread of its own.
///
/// llama.cpp then always sees the same calling thread: its allocations stay in one malloc arena
/// (spread over the cooperative pool's threads, the host's memory grew in steps for hundreds of
/// requests) and ggml's main compute thread stays the same.
final class ThreadExecutor: SerialExecutor {
    private let queue = JobQueue()

    init(name: String) {
        let queue = self.queue
        // Unowned: jobs keep their actor, and so this executor, alive while they wait.
        let executor = asUnownedSerialExecutor()
        Thread.start(named: name) { queue.run(on: executor) }
    }

    deinit { queue.stop() }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The jobs waiting for a ``ThreadExecutor``'s thread.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    func push(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    func run(on executor: UnownedSerialExecutor) {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty { condition.unlock(); return }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
