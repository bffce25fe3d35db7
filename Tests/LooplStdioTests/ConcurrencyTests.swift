import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// Several requests in flight on one worker (protocol version 2), on the Python worker: routing
/// by id, cancellation and errors of one request, faults that fail them all, the queue's bound,
/// and a version 1 worker served one request at a time.
@Suite(.serialized) struct ConcurrencyTests {
    static func start(_ arguments: [String] = [], parallel: Int = 4, maxQueue: Int = 64,
                      idle: Duration = .seconds(10)) async throws -> StdioModel {
        try await StdioModel.start(StdioModel.Configuration(command: Fixtures.python(arguments), initializeTimeout: .seconds(20),
                                                            idleTimeout: idle, parallel: parallel, maxQueue: maxQueue))
    }

    static let hellos = Array(repeating: "Hello", count: 4)

    /// The shared concurrency checks; `--echo` gives each conversation its own answer.
    @Test(.timeLimit(.minutes(1)))
    func concurrencyConformance() async throws {
        let model = try await Self.start(["--echo"])
        #expect(model.info.protocolVersion == 2)
        #expect(model.info.concurrentRequests == 4 && model.parallel == 4)
        let pid = model.workerPID
        try await ModelConformance(model: model).runConcurrency(count: 4)
        #expect(model.workerPID == pid, "a cancellation or an error of one request restarted the worker")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func theWorkersConcurrencyCapsParallel() async throws {
        let fewer = try await Self.start(["--concurrency", "2"])
        #expect(fewer.parallel == 2)
        await fewer.close()
        let configured = try await Self.start(parallel: 3)
        #expect(configured.parallel == 3)
        await configured.close()
    }

    /// Past `parallel` running and `maxQueue` waiting, a request fails with `busy` at once.
    @Test(.timeLimit(.minutes(1)))
    func pastTheQueueBoundARequestIsBusy() async throws {
        let model = try await Self.start(parallel: 2, maxQueue: 1)
        try await ModelConformance(model: model).checkQueueBoundGivesBusy(parallel: 2, maxQueue: 1)
        await model.close()
    }

    /// A worker that dies fails every request in flight, each with its own engine-loss error; the
    /// next request starts one new worker.
    @Test(.timeLimit(.minutes(1)))
    func aCrashFailsEveryRequestInFlight() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", "crash", "--fault-after", "3", "--fault-when-running", "4", "--fault-once", marker])
        let first = model.workerPID
        let results = await Fixtures.together(model, Self.hellos, options: .greedy(maxTokens: 8))
        for result in results {
            guard case .failure(let error as LooplError) = result else {
                Issue.record("a request in flight survived the crash: \(result)")
                continue
            }
            #expect(error.code == .processFailed && error.isEngineLoss, "\(error.code): \(error.message)")
            #expect(error.message.contains("exited with status 7 mid-stream"), "\(error.message)")
        }
        let after = await Fixtures.together(model, Self.hellos, options: .greedy(maxTokens: 4))
        #expect(after.allSatisfy { (try? $0.get()) == "Hello! How can" }, "\(after)")
        #expect(model.workerPID != first)
        await model.close()
    }

    /// A protocol violation, or silence, fails every request in flight.
    @Test(.timeLimit(.minutes(1)), arguments: [
        ("unknown-id", LooplError.Code.protocolViolation, "unknown id 987654"),
        ("stall", .timedOut, "sent nothing for 2.0 s"),
    ])
    func aFaultFailsEveryRequestInFlight(_ fault: String, _ code: LooplError.Code, _ fragment: String) async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", fault, "--fault-after", "2", "--fault-when-running", "4", "--fault-once", marker], idle: .seconds(2))
        let results = await Fixtures.together(model, Self.hellos, options: .greedy(maxTokens: 8))
        for result in results {
            guard case .failure(let error as LooplError) = result else {
                Issue.record("a request in flight survived the fault: \(result)")
                continue
            }
            #expect(error.code == code && error.message.contains(fragment), "\(error.code): \(error.message)")
        }
        try await FaultTests.expectSuccess(model)
        await model.close()
    }

    /// A worker that speaks only version 1 refuses version 2, is offered version 1, and is
    /// served one request at a time.
    @Test(.timeLimit(.minutes(1)))
    func aVersion1WorkerIsServedOneRequestAtATime() async throws {
        let model = try await Self.start(["--protocol", "1", "--echo"])
        #expect(model.info.protocolVersion == 1)
        #expect(model.info.concurrentRequests == 1 && !model.info.reasoning)
        #expect(model.parallel == 1)
        let prompts = ["Tell me about the sea.", "Name three colours.", "What is a lighthouse?", "Count to five."]
        let answers = try await Fixtures.together(model, prompts, options: .greedy(maxTokens: 16)).map { try $0.get() }
        #expect(answers == prompts)
        var reasoningOptions = GenerationOptions.greedy(maxTokens: 12)
        reasoningOptions.reasoning = .on
        let turn = try await ModelConformance(model: model).run("v1", [.user("Hello")], options: reasoningOptions)
        #expect(turn.reasoning.isEmpty && turn.text == "Hello")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func reasoningEventsReachTheHost() async throws {
        let model = try await Self.start()
        #expect(model.info.reasoning)
        var options = GenerationOptions.greedy(maxTokens: 32)
        options.reasoning = .on
        let conformance = ModelConformance(model: model)
        let on = try await conformance.run("on", [.user("Hello")], options: options)
        #expect(on.reasoning == "Let me think about that.")
        #expect(on.text == "Hello! How can I help you today?")
        options.reasoningBudget = 2
        #expect(try await conformance.run("budget", [.user("Hello")], options: options).reasoning == "Let me think")
        options.reasoning = .off
        let off = try await conformance.run("off", [.user("Hello")], options: options)
        #expect(off.reasoning.isEmpty && off.text == "Hello! How can I help you today?")
        await model.close()
    }
}
