import Foundation
import Glibc
import Loopl

/// `ctrl-c`: a terminal's Ctrl-C, played inside this host. The host becomes a job of its own (a
/// process group, as a shell makes each command), takes SIGINT the way `loopl chat` does (it
/// cancels a turn, not the host), starts `/bin/sleep 300` through ``ChildProcess``, prints
/// "child <pid>", sends SIGINT to its own group as the terminal would, and prints "child running"
/// or "child ended <status>" half a second later. It then waits for "exit" or the end of standard
/// input, and ends the child.
enum CtrlCTrial {
    static func run() async throws {
        setpgid(0, 0)
        signal(SIGINT, SIG_IGN)
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["300"])
        say("child \(child.pid)")
        kill(0, SIGINT)
        try await Task.sleep(for: .milliseconds(500))
        say(child.exitStatus.map { "child ended \($0)" } ?? "child running")
        while let line = readLine(), line != "exit" {}
        await child.terminate(grace: .seconds(1))
    }
}
