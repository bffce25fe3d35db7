import CLooplSpawn
import Foundation
import Synchronization

/// A child process that never outlives this one, nor does anything it starts: it runs under a
/// reaper of its own (`loopl-reaper`, the subreaper of all the child starts), which kills the
/// whole tree when the host ends, even by SIGKILL, or when the child is let go.
///
/// It leads its own process group, so a Ctrl-C at the host's terminal does not reach it, and
/// ``terminate(grace:)`` ends its descendants with it.
///
/// Its standard error (and standard output, unless streamed) is always drained, and the last
/// lines are kept for error messages. ``terminate(grace:)`` always ends in SIGKILL.
package final class ChildProcess: Sendable {
    /// What happens to the child's standard output.
    package enum Output: Sendable {
        /// Delivered in ``output``.
        case stream
        /// Read and kept with the standard error's last lines.
        case drain
    }

    package let pid: Int32
    package let executable: String
    /// The child's standard output in chunks, when started with `.stream`; it ends at end of file.
    /// The child is read only as fast as this is consumed: at most 4 MiB wait in between.
    package let output: ChildOutput
    /// Its standard input, written by a thread of its own.
    private let input: ChildInput
    private let shared = Shared()
    /// The reaper's guard: closing it ends the child and all it started.
    private let guardFD: Mutex<Int32?>

    /// Starts `executable` with `arguments`, in the folder `currentDirectory` when given.
    /// Throws `processFailed` when it cannot be started.
    package init(executable: String, arguments: [String], environment: [String: String]? = nil,
                currentDirectory: String? = nil, output mode: Output = .drain) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw LooplError(.processFailed, "Cannot run \(executable): no executable file there. Check the path (scripts/bootstrap builds llama-server).")
        }
        let input = try Pipe2()
        let out = try Pipe2()
        let err = try Pipe2()
        let environment = environment ?? ProcessInfo.processInfo.environment
        var child = loopl_child()
        let started = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                loopl_spawn(executable, argv, envp, currentDirectory, input.read, out.write, err.write, &child)
            }
        }
        close(input.read)
        close(out.write)
        close(err.write)
        guard started == 0 else {
            close(input.write)
            close(out.read)
            close(err.read)
            throw LooplError(.processFailed, "Cannot start \(executable): \(String(cString: strerror(-started))).")
        }
        self.pid = child.pid
        guardFD = Mutex(child.guard_fd)
        self.executable = executable
        self.input = ChildInput(fd: input.write)
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let credit = ChunkCredit()
        continuation.onTermination = { _ in credit.abandon() }
        self.output = ChildOutput(stream: stream, credit: credit)
        let shared = self.shared
        shared.tailReaders.enter()
        startReader(err.read) { chunk in shared.tail.withLock { $0.append(chunk) } } onEnd: { shared.tailReaders.leave() }
        switch mode {
        case .stream:
            startReader(out.read) { chunk in if credit.acquire() { continuation.yield(chunk) } } onEnd: { continuation.finish() }
        case .drain:
            continuation.finish()
            shared.tailReaders.enter()
            startReader(out.read) { chunk in shared.tail.withLock { $0.append(chunk) } } onEnd: { shared.tailReaders.leave() }
        }
        startWatcher(status: child.status_fd, reaper: child.reaper)
    }

    deinit {
        if exitStatus == nil {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }
        letGo()
        input.abandon()
    }

    /// The last lines the child wrote to standard error (and to standard output when drained).
    package var lastLines: String { shared.tail.withLock { $0.text } }

    /// The exit status once the child has ended (128 + the signal number when a signal ended it).
    package var exitStatus: Int32? { shared.status.withLock { $0.code } }

    /// Queues all of `bytes` for the child's standard input and returns at once: a thread of
    /// its own writes them. Throws `processFailed` when the input is closed, the child stopped
    /// reading it, or more than ``ChildInput/limit`` bytes already wait.
    package func write(_ bytes: [UInt8]) throws {
        do { try input.write(bytes) } catch {
            throw LooplError(.processFailed, "Cannot write to \(executable): \(error.reason).")
        }
    }

    /// Closes the child's standard input once what is queued is written; a well-behaved worker
    /// exits when it sees end of file.
    package func closeInput() {
        input.close()
    }

    /// Waits for the child to end and returns its exit status.
    package func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let code = shared.status.withLock { state -> Int32? in
                if state.code == nil { state.waiters.append(continuation) }
                return state.code
            }
            if let code { continuation.resume(returning: code) }
        }
    }

    /// Waits up to `timeout` for the child to end; returns its status, or nil if it is still running.
    package func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let code = exitStatus { return code }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus
    }

    /// Sends SIGTERM to the child's process group, waits up to `grace` for the child, then
    /// SIGKILL to the group; returns when the child is gone. The group holds what the child
    /// started (an `sh -c` or `npx` wrapper's server), so that ends too, even when the child
    /// itself had already exited. Runs to the end even when the calling task is cancelled.
    package func terminate(grace: Duration = .seconds(3)) async {
        closeInput()
        guard exitStatus == nil else {
            endGroup()
            letGo()
            input.abandon()
            return
        }
        if kill(-pid, SIGTERM) != 0 { kill(pid, SIGTERM) }
        await Task.detached { [self] in
            if await waitForExit(timeout: grace) == nil {
                kill(pid, SIGKILL)
                _ = await waitForExit()
            }
            endGroup()
        }.value
        letGo()
        input.abandon()
    }

    /// SIGKILL to whatever is left in the child's process group (its group id is its pid).
    private func endGroup() {
        kill(-pid, SIGKILL)
    }

    /// Closes the reaper's guard: it kills whatever the child left, inside its group or not, and exits.
    private func letGo() {
        guardFD.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    /// Sends `signal` to the child.
    package func signal(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    private func startReader(_ fd: Int32, onChunk: @escaping @Sendable ([UInt8]) -> Void,
                             onEnd: @escaping @Sendable () -> Void) {
        Thread.start(named: "loopl reader") {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                onChunk(Array(buffer[..<count]))
            }
            close(fd)
            onEnd()
        }
    }

    /// Waits for the child's wait status from its reaper, publishes it, then reaps the reaper
    /// once it ends (when the child's tree is gone, or it was let go).
    private func startWatcher(status: Int32, reaper: Int32) {
        let shared = self.shared
        Thread.start(named: "loopl reaper") {
            var raw: Int32 = 0
            var got: Int
            repeat { got = withUnsafeMutableBytes(of: &raw) { read(status, $0.baseAddress, 4) } } while got < 0 && errno == EINTR
            close(status)
            if got != 4 { raw = SIGKILL }  // the reaper was killed, and the child with it
            let code = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            // Its last words first, so that `lastLines` is complete once the exit is known; a
            // grandchild that holds the pipes open cannot delay the exit for long.
            _ = shared.tailReaders.wait(timeout: .now() + .milliseconds(500))
            let waiters = shared.status.withLock { state in
                state.code = code
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: code) }
            while waitpid(reaper, nil, 0) < 0, errno == EINTR {}
        }
    }
}

/// The state that the reader and reaper threads share with the process object.
private final class Shared: Sendable {
    let tail = Mutex(LineTail(limit: 40))
    /// The readers that feed `tail`, until they reach the end of their pipe.
    let tailReaders = DispatchGroup()
    let status = Mutex<(code: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))
}

/// A pipe whose two ends are closed on exec.
private struct Pipe2 {
    let read: Int32
    let write: Int32
    init() throws {
        var fds: [Int32] = [0, 0]
        guard loopl_pipe(&fds) == 0 else {
            throw LooplError(.processFailed, "Cannot create a pipe: \(String(cString: strerror(errno))).")
        }
        read = fds[0]
        write = fds[1]
    }
}

/// The last lines of a byte stream.
private struct LineTail {
    let limit: Int
    private var lines: [String] = []
    private var partial: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    mutating func append(_ bytes: [UInt8]) {
        for byte in bytes {
            if byte == 0x0A {
                lines.append(String(decoding: partial, as: UTF8.self))
                partial.removeAll(keepingCapacity: true)
                if lines.count > limit { lines.removeFirst(lines.count - limit) }
            } else if partial.count < 4096 {
                partial.append(byte)
            }
        }
    }

    var text: String { (lines + (partial.isEmpty ? [] : [String(decoding: partial, as: UTF8.self)])).joined(separator: "\n") }
}

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
