import Foundation
import Loopl
import LooplServer
import Testing

/// Starting a child: stand-in "servers" written as shell scripts that fail in each way.
@Suite(.serialized) struct ReadinessTests {
    /// A configuration whose server is a script with `body`.
    static func configuration(script body: String, stall: Duration = .seconds(60)) throws -> (LlamaServerModel.Configuration, URL) {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-fake-server-\(UUID().uuidString).sh")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        var configuration = LlamaServerModel.Configuration(rendering: .server, contextLength: 256, threads: 1)
        configuration.serverPath = script.path
        configuration.readinessStallTimeout = stall
        return (configuration, script)
    }

    @Test(.timeLimit(.minutes(1)))
    func aChildThatExitsFailsAtOnceWithItsLastLines() async throws {
        let (configuration, script) = try Self.configuration(script: "echo 'main: loading model' >&2\necho 'error: out of cheese' >&2\nexit 3")
        defer { try? FileManager.default.removeItem(at: script) }
        let start = ContinuousClock.now
        do {
            _ = try await LlamaServerModel.start(configuration)
            Issue.record("a server that exits was ready")
        } catch let error as LooplError {
            #expect(error.code == .processFailed)
            #expect(error.message.contains("status 3") && error.message.contains("out of cheese"), "\(error.message)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test(.timeLimit(.minutes(1)))
    func aSilentChildStallsOut() async throws {
        let (configuration, script) = try Self.configuration(script: "exec sleep 100", stall: .seconds(1))
        defer { try? FileManager.default.removeItem(at: script) }
        let start = ContinuousClock.now
        do {
            _ = try await LlamaServerModel.start(configuration)
            Issue.record("a silent server was ready")
        } catch let error as LooplError {
            #expect(error.code == .processFailed)
            #expect(error.message.contains("no progress"), "\(error.message)")
        }
        // Not before the stall timeout (a stall that fires at once is a defect too), and soon after it.
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(4), "stalled out after \(elapsed) for a 1 s stall timeout")
    }

    /// A child that keeps logging is not stalled, even past the stall timeout.
    @Test(.timeLimit(.minutes(1)))
    func progressKeepsTheWaitGoing() async throws {
        let (configuration, script) = try Self.configuration(
            script: "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"loading $i\" >&2; sleep 0.25; done\necho 'error: gave up' >&2\nexit 1",
            stall: .seconds(1))
        defer { try? FileManager.default.removeItem(at: script) }
        do {
            _ = try await LlamaServerModel.start(configuration)
            Issue.record("the script never became ready")
        } catch let error as LooplError {
            #expect(error.message.contains("gave up"), "the wait stalled out while the child made progress: \(error.message)")
        }
    }
}
