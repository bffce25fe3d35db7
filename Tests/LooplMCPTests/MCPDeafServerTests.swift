import Dispatch
import Foundation
import Glibc
import Loopl
@testable import LooplMCP
import Testing

/// An MCP server that stops reading its input while the host writes to it wedges nothing: its
/// calls time out, other tasks run, and the client's shutdown ends.
@Suite(.serialized) struct MCPDeafServerTests {
    @Test(.timeLimit(.minutes(2)))
    func serversThatStopReadingWedgeNeitherThePoolNorShutdown() async throws {
        let pids = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-pids-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: pids) }
        // More servers than the pool has threads.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let clients = (0..<count).map { index in
            MCPClient(config: MCPServerConfig(name: "deaf\(index)", command: "python3", arguments: [MCPClientTests.script, "legacy"],
                                              environment: ["MCP_TEST_PIDS": pids], timeout: .seconds(2)))
        }
        for client in clients { try await client.start() }
        let started = (try? String(contentsOfFile: pids, encoding: .utf8))?.split(separator: "\n").compactMap { Int32($0) } ?? []
        #expect(started.count == count)
        // If writes wedge the pool, killing the servers frees it, so that the test fails rather than hangs.
        let done = DispatchSemaphore(value: 0)
        Thread.start(named: "loopl watchdog") {
            guard done.wait(timeout: .now() + .seconds(40)) == .timedOut else { return }
            for pid in started { kill(pid, SIGKILL) }
        }
        let text = String(repeating: "x", count: 4 << 20)
        let callers = clients.map { client in
            Task.detached { () -> [String] in
                var outcomes: [String] = []
                // `slow` sleeps in the server, which then reads nothing more; the calls after it
                // fill its input pipe many times over.
                for (name, arguments) in [("slow", ["seconds": JSONValue.integer(600)]), ("echo", ["text": .string(text)]),
                                          ("echo", ["text": .string(text)])] as [(String, JSONObject)] {
                    do { _ = try await client.call(name, arguments: arguments) } catch {
                        outcomes.append((error as? LooplError)?.message ?? "\(error)")
                    }
                }
                return outcomes
            }
        }
        let alive: @Sendable () -> Bool = { started.allSatisfy { kill($0, 0) == 0 } }
        let ranWhileAlive = await Task.detached { alive() }.value
        var outcomes: [[String]] = []
        for caller in callers { outcomes.append(await caller.value) }
        let stillAlive = alive()
        for client in clients { await client.shutdown() }
        done.signal()
        #expect(ranWhileAlive, "another task ran only after the servers were killed")
        #expect(stillAlive, "the calls ended only when the servers were killed")
        for outcome in outcomes {
            #expect(outcome.count == 3 && outcome.allSatisfy { $0.contains("did not answer tools/call") }, "\(outcome)")
        }
        for pid in started { #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(3)), "server \(pid) outlived the client's shutdown") }
    }
}
