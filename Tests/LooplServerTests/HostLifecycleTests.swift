import Foundation
import Loopl
import LooplTestKit
import Testing

/// The child llama-server never outlives its host: a `loopl-test-host` process starts one, then ends.
@Suite(.serialized) struct HostLifecycleTests {
    enum Ending: String, CaseIterable, Sendable {
        case normalExit, sigint, sigterm, sigkill
    }

    static var hostPath: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl-test-host").path
    }

    /// Starts a host, waits for its child's pid, ends the host as `ending` says, and returns the child's pid.
    static func runHost(ending: Ending) async throws -> Int32 {
        let host = try ChildProcess(executable: hostPath, arguments: ["hold", LooplHome.defaultModel], output: .stream)
        var text = ""
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains("\n") { break }
        }
        guard text.hasPrefix("child "), let pid = Int32(text.dropFirst(6).prefix { $0.isNumber }) else {
            await host.terminate()
            throw LooplError(.processFailed, "the host printed \(text.debugDescription); its log: \(host.lastLines)")
        }
        #expect(ProcessWatch.isRunning(pid))
        switch ending {
        case .normalExit:
            try host.write(Array("exit\n".utf8))
            #expect(await host.waitForExit() == 0)
        case .sigint:
            host.signal(SIGINT)
            #expect(await host.waitForExit() == 128 + SIGINT)
        case .sigterm:
            host.signal(SIGTERM)
            #expect(await host.waitForExit() == 128 + SIGTERM)
        case .sigkill:
            host.signal(SIGKILL)
            #expect(await host.waitForExit() == 128 + SIGKILL)
        }
        return pid
    }

    @Test(.timeLimit(.minutes(5)), arguments: Ending.allCases)
    func childEndsWithItsHost(_ ending: Ending) async throws {
        let pid = try await Self.runHost(ending: ending)
        #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(5)), "llama-server \(pid) outlived its host after \(ending)")
    }
}
