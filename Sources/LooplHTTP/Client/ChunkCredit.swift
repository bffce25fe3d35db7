import Dispatch
import Synchronization

/// Back-pressure between a reader thread and the task that consumes its chunks: the thread takes
/// one credit per chunk it hands on and waits while none is left; the consumer gives one back per
/// chunk it takes. At most `chunks` chunks are ever buffered between them.
package final class ChunkCredit: Sendable {
    // Created at zero and raised with signals, so that it may be released while credits are out.
    private let semaphore = DispatchSemaphore(value: 0)
    private let abandoned = Atomic<Bool>(false)

    /// A credit of `chunks` chunks (64 chunks of 64 KiB: 4 MiB by default).
    package init(chunks: Int = 64) {
        for _ in 0..<max(1, chunks) { semaphore.signal() }
    }

    /// Waits for a credit; false once the consumer is gone (the reader then drops its chunks).
    package func acquire() -> Bool {
        while !abandoned.load(ordering: .acquiring) {
            if semaphore.wait(timeout: .now() + .milliseconds(200)) == .success { return true }
        }
        return false
    }

    /// Gives one credit back: the consumer took a chunk.
    package func release() { semaphore.signal() }

    /// The consumer is gone: no wait blocks any more.
    package func abandon() { abandoned.store(true, ordering: .releasing) }
}
