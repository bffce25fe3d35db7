import Dispatch
import Foundation
import Synchronization

/// Lines of standard input, read on a thread of their own from the first ``next()`` on, a few
/// ahead at most. A reader that is cancelled gets nil and leaves the next line to the next reader.
final class StandardInputLines: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
        var waiter: (id: Int, continuation: CheckedContinuation<String?, Never>)?
        var readers = 0
        var reading = false
    }

    /// How many lines are read ahead of their readers.
    static let readAhead = 16
    private let state = Mutex(State())
    private let room = DispatchSemaphore(value: StandardInputLines.readAhead)

    init() {}

    /// Starts the reading thread, once: not before a line is wanted, so that a run in the
    /// background that never asks does not read its terminal.
    private func startReading() {
        guard state.withLock({ state in
            defer { state.reading = true }
            return !state.reading
        }) else { return }
        Thread.start(named: "loopl stdin") { [self] in
            while true {
                room.wait()
                guard let line = readLine(strippingNewline: true) else { break }
                deliver(line)
            }
            deliver(nil)
        }
    }

    /// Hands `line` to the waiting reader, else keeps it; nil: the input ended.
    private func deliver(_ line: String?) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            if line == nil { state.ended = true } else if state.waiter == nil, let line { state.lines.append(line) }
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        if line != nil, waiter != nil { room.signal() }
        waiter?.resume(returning: line)
    }

    /// The next line; nil at end of input or when the task is cancelled.
    func next() async -> String? {
        startReading()
        let id = state.withLock { state in
            state.readers += 1
            return state.readers
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> String?? in
                    if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.waiter = (id, continuation)
                    return nil
                }
                guard let ready else { return }
                if ready != nil { room.signal() }
                continuation.resume(returning: ready)
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The next line; nil at end of input or when Ctrl-C is pressed at the prompt.
    func next(orInterrupt interrupts: Interrupts) async -> String? {
        let quit = LockedFlag()
        let waiting = Task { await self.next() }
        interrupts.onInterrupt { quit.set(); waiting.cancel() }
        let line = await waiting.value
        interrupts.onInterrupt(nil)
        return quit.isSet ? nil : line
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
