import Foundation
import Glibc
import Loopl
import Testing

/// Each child leads its own process group: the terminal's Ctrl-C does not reach it, and its
/// teardown ends what it started.
@Suite struct ChildProcessGroupTests {
    /// The first line the child writes, as a pid.
    static func firstPid(of child: ChildProcess) async -> Int32? {
        var bytes: [UInt8] = []
        for await chunk in child.output {
            bytes += chunk
            if bytes.contains(0x0A) { break }
        }
        return Int32(String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? "")
    }

    @Test(.timeLimit(.minutes(1)))
    func aChildLeadsItsOwnGroup() async throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(getpgid(child.pid) == child.pid)
        #expect(getpgid(child.pid) != getpgrp())
        await child.terminate(grace: .seconds(1))
    }

    @Test(.timeLimit(.minutes(1)))
    func terminatingAChildEndsWhatItStarted() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 300 & echo $!; wait"], output: .stream)
        let grandchild = try #require(await Self.firstPid(of: child))
        await child.terminate(grace: .seconds(1))
        #expect(await ProcessWatch.waitUntilGone(grandchild, timeout: .seconds(3)), "grandchild \(grandchild) outlived its parent's teardown")
    }

    @Test(.timeLimit(.minutes(1)))
    func terminatingAnExitedChildEndsWhatItLeft() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 300 >/dev/null 2>&1 & echo $!"], output: .stream)
        let grandchild = try #require(await Self.firstPid(of: child))
        #expect(await child.waitForExit() == 0)
        await child.terminate(grace: .seconds(1))
        #expect(await ProcessWatch.waitUntilGone(grandchild, timeout: .seconds(3)), "grandchild \(grandchild) outlived its parent's teardown")
    }

    /// A SIGKILLed host cannot end its children itself: each child's reaper, the subreaper of all
    /// it starts, kills the tree when the host is gone. The child's shell starts one `sleep` in its
    /// group and one in a session of its own (`setsid`); the child and both are gone within 2 s.
    @Test(.timeLimit(.minutes(1)))
    func nothingAChildStartedOutlivesASIGKILLedHost() async throws {
        let host = try ChildProcess(executable: try Self.hostPath(), arguments: [
            "spawn", "/bin/sh", "-c", "sleep 1000 & echo $!; setsid sh -c 'echo $$; exec sleep 1000' & wait"], output: .stream)
        let (lines, text) = await Self.lines(3, of: host)
        let child = try #require(lines.first.flatMap { Int32($0.dropFirst("child ".count)) }, "host said \(text.debugDescription)")
        let grandchildren = lines.dropFirst().compactMap { Int32($0) }
        try #require(grandchildren.count == 2, "host said \(text.debugDescription)")
        #expect(getsid(grandchildren[1]) != getsid(child), "the second sleep left the child's session")
        kill(host.pid, SIGKILL)
        #expect(await host.waitForExit() == 128 + SIGKILL)
        for pid in [child] + grandchildren {
            #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(2)), "\(pid) outlived the SIGKILLed host")
        }
        // The control: a host that ends its child itself leaves nothing either.
        let calm = try ChildProcess(executable: try Self.hostPath(), arguments: ["spawn", "/bin/sh", "-c", "sleep 1000 & echo $!; wait"],
                                    output: .stream)
        let sleeper = try #require(await Self.lines(2, of: calm).lines.dropFirst().first.flatMap { Int32($0) })
        try calm.write(Array("exit\n".utf8))
        #expect(await calm.waitForExit() == 0)
        #expect(await ProcessWatch.waitUntilGone(sleeper, timeout: .seconds(3)))
    }

    /// The first `count` lines `child` writes (fewer if it ends first), and the text read.
    static func lines(_ count: Int, of child: ChildProcess) async -> (lines: [String], text: String) {
        var text = ""
        for await chunk in child.output {
            text += String(decoding: chunk, as: UTF8.self)
            if text.split(separator: "\n").count >= count { break }
        }
        return (text.split(separator: "\n").map(String.init), text)
    }

    static func hostPath() throws -> String {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("loopl-test-host").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing: build the package")
        return path
    }

    /// A Ctrl-C goes to the terminal's foreground group: the host's. `loopl-test-host ctrl-c` plays
    /// it inside a host that takes SIGINT as `loopl chat` does; its child must not see it.
    @Test(.timeLimit(.minutes(1)))
    func aCtrlCToTheHostsGroupDoesNotReachItsChild() async throws {
        let host = try ChildProcess(executable: try Self.hostPath(), arguments: ["ctrl-c"], output: .stream)
        let (lines, text) = await Self.lines(2, of: host)
        let child = try #require(lines.first.flatMap { Int32($0.dropFirst("child ".count)) }, "host said \(text.debugDescription)")
        #expect(lines.dropFirst().first == "child running", "host said \(text.debugDescription)")
        try host.write(Array("exit\n".utf8))
        #expect(await host.waitForExit() == 0)
        #expect(await ProcessWatch.waitUntilGone(child, timeout: .seconds(3)))
    }
}
