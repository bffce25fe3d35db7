import Dispatch
import Foundation
import Glibc
import Loopl
import Testing

/// Writing to a child that stopped reading blocks no task, no lock and no shutdown: the bytes
/// wait, bounded, on a thread of the child's own.
@Suite(.serialized) struct ChildInputTests {
    /// Kills `children` unless `done` is signalled within `seconds`: what frees the pool's
    /// threads if writes wedged them, so that the test fails rather than hangs.
    static func watchdog(_ children: [ChildProcess], seconds: Int, done: DispatchSemaphore) {
        Thread.start(named: "loopl watchdog") {
            guard done.wait(timeout: .now() + .seconds(seconds)) == .timedOut else { return }
            for child in children { kill(-child.pid, SIGKILL) }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func deafChildrenBlockNeitherThePoolNorShutdown() async throws {
        // More deaf children than the pool has threads, each written from a task of its own.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let children = try (0..<count).map { _ in try ChildProcess(executable: "/bin/sleep", arguments: ["600"]) }
        let done = DispatchSemaphore(value: 0)
        Self.watchdog(children, seconds: 30, done: done)
        let chunk = [UInt8](repeating: 0x61, count: 1 << 20)
        let writers = children.map { child in
            Task.detached { () -> String? in
                for _ in 0..<100 {
                    do { try child.write(chunk) } catch { return (error as? LooplError)?.message ?? "\(error)" }
                }
                return nil
            }
        }
        // Another task that needs the pool while the writers run: it sees the children alive.
        let ranWhileAlive = await Task.detached { children.allSatisfy { $0.exitStatus == nil } }.value
        var messages: [String?] = []
        for writer in writers { messages.append(await writer.value) }
        for child in children { await child.terminate(grace: .seconds(1)) }
        done.signal()
        #expect(ranWhileAlive, "another task ran only after the children were killed")
        for message in messages {
            #expect(message?.contains("stopped reading its input: 64 MiB wait unread") == true, "\(message ?? "no error")")
        }
        for child in children { #expect(child.exitStatus != nil) }
    }

    @Test(.timeLimit(.minutes(1)))
    func queuedInputReachesTheChildBeforeEndOfFile() async throws {
        let child = try ChildProcess(executable: "/usr/bin/wc", arguments: ["-c"], output: .stream)
        let chunk = [UInt8](repeating: 0x62, count: 300_000)
        for _ in 0..<10 { try child.write(chunk) }
        child.closeInput()
        var bytes: [UInt8] = []
        for await piece in child.output { bytes += piece }
        #expect(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "3000000")
        #expect(await child.waitForExit() == 0)
        #expect(throws: LooplError.self) { try child.write([0x0A]) }
    }
}
