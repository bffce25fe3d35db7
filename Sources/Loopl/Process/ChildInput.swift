import Foundation
import Synchronization

/// A child's standard input, written by a thread of its own on a non-blocking descriptor: a
/// write queues its bytes and returns at once, so a child that stops reading blocks no task, no
/// lock and no shutdown. At most ``limit`` bytes wait; more is an error.
package final class ChildInput: Sendable {
    /// The most bytes that may wait for the child to read them: 64 MiB.
    package static let limit = 64 << 20

    private struct State {
        var pending: [[UInt8]] = []
        var bytes = 0
        /// Close once what is queued is written.
        var closing = false
        /// Close now, dropping what is queued.
        var abandoned = false
        /// Why the input is unusable, once it is.
        var failure: String?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let limit: Int

    /// Takes over `fd` (the write end of the child's input pipe), which it closes when done.
    package init(fd: Int32, limit: Int = ChildInput.limit) {
        self.limit = limit
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        Thread.start(named: "loopl writer") { [self] in run(fd) }
    }

    /// Queues all of `bytes`; throws a message when the input is closed or broken, or when more
    /// than the limit would wait.
    package func write(_ bytes: [UInt8]) throws(ChildInputError) {
        try state.withLock { state throws(ChildInputError) in
            if let failure = state.failure { throw ChildInputError(reason: failure) }
            guard !state.closing, !state.abandoned else { throw ChildInputError(reason: "its input is closed") }
            guard state.bytes + bytes.count <= limit else {
                throw ChildInputError(reason: "it stopped reading its input: \(limit / 1024 / 1024) MiB wait unread")
            }
            state.pending.append(bytes)
            state.bytes += bytes.count
        }
        wake.signal()
    }

    /// Closes the input once what is queued has been written: the child then sees end of file.
    package func close() {
        state.withLock { $0.closing = true }
        wake.signal()
    }

    /// Closes the input now; what is queued is dropped.
    package func abandon() {
        state.withLock { $0.abandoned = true }
        wake.signal()
    }

    /// The bytes queued and not yet written.
    package var waiting: Int { state.withLock { $0.bytes } }

    private enum Next { case chunk([UInt8]), end, wait }

    private func run(_ fd: Int32) {
        defer { Glibc.close(fd) }
        while true {
            let next = state.withLock { state -> Next in
                if state.abandoned || state.failure != nil { return .end }
                if !state.pending.isEmpty { return .chunk(state.pending.removeFirst()) }
                return state.closing ? .end : .wait
            }
            switch next {
            case .end: return
            case .wait: wake.wait()
            case .chunk(let chunk):
                if let failure = send(chunk, to: fd) {
                    state.withLock { state in
                        state.failure = failure
                        state.pending = []
                        state.bytes = 0
                    }
                    return
                }
                state.withLock { $0.bytes -= chunk.count }
            }
        }
    }

    /// Writes `chunk` whole, waiting for room with `poll`; the reason it could not, or nil.
    private func send(_ chunk: [UInt8], to fd: Int32) -> String? {
        var rest = chunk[...]
        while !rest.isEmpty {
            if state.withLock({ $0.abandoned }) { return "its input is closed" }
            let written = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                rest = rest.dropFirst(written)
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 100)
                continue
            }
            return "it stopped reading its input (\(String(cString: strerror(errno))))"
        }
        return nil
    }
}
