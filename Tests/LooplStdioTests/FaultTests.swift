import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// Each misbehaviour of the Python worker gives its typed error within its timeout, and the
/// following request (on a restarted worker, which behaves) succeeds.
@Suite(.serialized) struct FaultTests {
    static let idle = Duration.seconds(3)

    static func start(_ fault: String, marker: String) async throws -> StdioModel {
        try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", fault, "--fault-once", marker]),
            initializeTimeout: .seconds(20), idleTimeout: idle))
    }

    /// Runs one request that must fail with `code` and a message containing `fragment`, within `bound`.
    static func expectFailure(_ model: StdioModel, _ code: LooplError.Code, _ fragment: String,
                              bound: Duration = .seconds(10)) async {
        let start = ContinuousClock.now
        do {
            let turn = try await Fixtures.collect(model)
            Issue.record("expected \(code), got an answer: \(turn.text.debugDescription)")
        } catch let error as LooplError {
            #expect(error.code == code, "\(error.code): \(error.message)")
            #expect(error.message.contains(fragment), "\(error.message)")
        } catch {
            Issue.record("expected a LooplError, got \(error)")
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < bound, "the fault took \(elapsed) to surface")
    }

    static func expectSuccess(_ model: StdioModel) async throws {
        let turn = try await Fixtures.collect(model)
        #expect(turn.text == "Hello! How can")
        #expect(turn.metrics?.finished == true)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [
        ("crash", LooplError.Code.processFailed, "exited with status 7 mid-stream"),
        ("non-json", .protocolViolation, "not JSON"),
        ("non-jsonrpc", .protocolViolation, "not JSON-RPC 2.0"),
        ("unknown-id", .protocolViolation, "unknown id 987654"),
        ("response-to-nothing", .protocolViolation, "a response to nothing"),
        ("long-line", .protocolViolation, "longer than 16 MiB"),
        ("non-utf8", .protocolViolation, "not UTF-8"),
        ("stall", .timedOut, "sent nothing for 3.0 s"),
    ])
    func faultMidStream(_ fault: String, _ code: LooplError.Code, _ fragment: String) async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(fault, marker: marker)
        let first = model.workerPID
        await Self.expectFailure(model, code, fragment)
        try await Self.expectSuccess(model)
        #expect(model.workerPID != first, "the faulty worker was not replaced")
        if let first { #expect(!ProcessWatch.isRunning(first), "the faulty worker still runs") }
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func crashMessageCarriesTheWorkersLastWords() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start("crash", marker: marker)
        await Self.expectFailure(model, .processFailed, "crashing mid-stream, as asked")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func eventAfterTheResultFailsTheNextRequest() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let record = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: record) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "after-result", "--fault-once", marker, "--record", record]),
            initializeTimeout: .seconds(20), idleTimeout: Self.idle))
        try await Self.expectSuccess(model)
        #expect(await Fixtures.waitForRecord(record, "too late"), "the worker did not send its event after the result")
        await Self.expectFailure(model, .protocolViolation, "after the result")
        try await Self.expectSuccess(model)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func exitAtStartIsAStartError() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let start = ContinuousClock.now
        do {
            _ = try await Self.start("exit-at-start", marker: marker)
            Issue.record("a worker that exits at start was accepted")
        } catch let error as LooplError {
            #expect(error.code == .processFailed)
            #expect(error.message.contains("exited with status 3 at start"), "\(error.message)")
            #expect(error.message.contains("exiting at start, as asked"), "\(error.message)")
        }
        #expect(ContinuousClock.now - start < .seconds(10))
        let model = try await Self.start("exit-at-start", marker: marker)
        try await Self.expectSuccess(model)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func silenceAtStartIsATimeout() async throws {
        let start = ContinuousClock.now
        do {
            _ = try await StdioModel.start(StdioModel.Configuration(command: ["sleep", "30"], initializeTimeout: .seconds(1)))
            Issue.record("a silent worker was accepted")
        } catch let error as LooplError {
            #expect(error.code == .timedOut)
            #expect(error.message.contains("did not answer initialize within 1.0 s"), "\(error.message)")
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test(.timeLimit(.minutes(1)))
    func stderrFloodIsDrained() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: Fixtures.python(["--fault", "stderr-flood"]), idleTimeout: .seconds(20)))
        try await Self.expectSuccess(model)
        try await Self.expectSuccess(model)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func workerErrorsKeepTheirCode() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-script-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: script) }
        try #"{"contextMax": 16, "turns": [{"chunks": ["ok"]}]}"#.write(toFile: script, atomically: true, encoding: .utf8)
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(["--script", script])))
        #expect(try await model.contextSize == 16)
        do {
            _ = try await Fixtures.collect(model)
            let long = try await model.generate(messages: [.user(String(repeating: "hello ", count: 40))], tools: [], options: .greedy()).reduce(0) { n, _ in n + 1 }
            Issue.record("a prompt over the context was answered with \(long) events")
        } catch let error as LooplError {
            #expect(error.code == .contextOverflow, "\(error.code): \(error.message)")
        }
        let pid = model.workerPID
        #expect(try await Fixtures.collect(model).text == "ok")
        #expect(model.workerPID == pid, "a worker error must not restart the worker")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func otherNotificationsAreIgnoredDuringAndBetweenRequests() async throws {
        let record = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: record) }
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(["--notify", "--record", record])))
        let pid = model.workerPID
        try await Self.expectSuccess(model)
        #expect(await Fixtures.waitForRecord(record, #""idle""#), "the worker sent no notification between requests")
        try await Self.expectSuccess(model)
        #expect(model.workerPID == pid)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatDiesWhileIdleIsRestarted() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python()))
        try await Self.expectSuccess(model)
        let first = try #require(model.workerPID)
        kill(first, SIGKILL)
        #expect(await ProcessWatch.waitUntilGone(first, timeout: .seconds(5)))
        try await Self.expectSuccess(model)
        #expect(model.workerPID != first)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func closeEndsTheWorkerAndLaterUseIsAnError() async throws {
        let model = try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python()))
        let pid = try #require(model.workerPID)
        await model.close()
        await model.close()
        #expect(!ProcessWatch.isRunning(pid))
        await Self.expectFailure(model, .closed, "after close()")
    }
}
