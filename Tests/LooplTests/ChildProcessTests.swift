import Foundation
import Loopl
import Testing

@Suite struct ChildProcessTests {
    @Test(.timeLimit(.minutes(1)))
    func streamsOutputAndReportsExit() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "printf 'hello\\n'; echo oops >&2; exit 3"], output: .stream)
        var bytes: [UInt8] = []
        for await chunk in child.output { bytes += chunk }
        #expect(String(decoding: bytes, as: UTF8.self) == "hello\n")
        #expect(await child.waitForExit() == 3)
        #expect(child.lastLines.contains("oops"))
    }

    @Test(.timeLimit(.minutes(1)))
    func inputReachesTheChild() async throws {
        let child = try ChildProcess(executable: "/bin/cat", arguments: [], output: .stream)
        try child.write(Array("line one\n".utf8))
        child.closeInput()
        var bytes: [UInt8] = []
        for await chunk in child.output { bytes += chunk }
        #expect(String(decoding: bytes, as: UTF8.self) == "line one\n")
        #expect(await child.waitForExit() == 0)
    }

    @Test func missingExecutableIsATypedError() {
        #expect(throws: LooplError.self) { try ChildProcess(executable: "/nonexistent/server", arguments: []) }
    }

    /// Whether process `pid` ignores SIGTERM: its bit in the SigIgn mask of /proc/PID/status.
    static func ignoresTerm(_ pid: Int32) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
              let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(SIGTERM - 1)) != 0
    }

    @Test(.timeLimit(.minutes(1)))
    func terminateSendsTermThenKill() async throws {
        let polite = try ChildProcess(executable: "/bin/sleep", arguments: ["100"])
        await polite.terminate(grace: .seconds(5))
        #expect(polite.exitStatus == 128 + SIGTERM)
        let stubborn = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "trap '' TERM; exec sleep 100"])
        // Until the shell ignores SIGTERM, as /proc shows.
        while !Self.ignoresTerm(stubborn.pid) { try await Task.sleep(for: .milliseconds(5)) }
        let start = ContinuousClock.now
        await stubborn.terminate(grace: .milliseconds(300))
        #expect(stubborn.exitStatus == 128 + SIGKILL)
        // SIGKILL only once the grace is over, and soon after.
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(2), "killed after \(elapsed) for a grace of 300 ms")
    }

    @Test(.timeLimit(.minutes(1)))
    func terminateFinishesWhenTheCallerIsCancelled() async throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["100"])
        let task = Task { await child.terminate(grace: .seconds(1)) }
        task.cancel()
        await task.value
        #expect(child.exitStatus != nil)
    }

    /// Descriptors of the host do not leak into the child.
    @Test(.timeLimit(.minutes(1)))
    func onlyStandardDescriptorsAreInherited() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "ls /proc/self/fd"], output: .stream)
        var bytes: [UInt8] = []
        for await chunk in child.output { bytes += chunk }
        let fds = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }.filter { $0 > 2 }
        #expect(fds.count <= 1, "inherited descriptors: \(fds)")
    }
}
