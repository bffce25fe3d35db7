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

    @Test(.timeLimit(.minutes(1)))
    func fourConversationsAtOnceMatchThemOneAfterAnother() async throws {
        let model = try await Self.start(["--echo", "--delay-ms", "20"])
        #expect(model.info.protocolVersion == 2)
        #expect(model.info.concurrentRequests == 4 && model.parallel == 4)
        try await ConcurrencyChecks(model: model).concurrentMatchesSequential()
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingOneOfFourLeavesTheOthers() async throws {
        let model = try await Self.start()
        let pid = model.workerPID
        try await ConcurrencyChecks(model: model).cancelOneOfMany()
        #expect(model.workerPID == pid, "the worker was restarted")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func oneOfFourOverTheContextFailsAlone() async throws {
        let model = try await Self.start()
        let pid = model.workerPID
        try await ConcurrencyChecks(model: model).overflowOneOfMany()
        #expect(model.workerPID == pid, "a worker error must not restart the worker")
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

    /// Past `parallel` running and `maxQueue` waiting, a request fails with `busy` at once; the
    /// waiting one runs when a place frees.
    @Test(.timeLimit(.minutes(1)))
    func pastTheQueueBoundARequestIsBusy() async throws {
        let model = try await Self.start(parallel: 2, maxQueue: 1)
        var options = GenerationOptions.greedy(maxTokens: 300)
        options.ignoreEndOfGeneration = true
        let long = options
        let started = AsyncStream<Void>.makeStream()
        let running = (0..<2).map { _ in
            Task { try await ConcurrencyChecks.run(model, "Hello", long, started: { started.continuation.yield() }) }
        }
        var signal = started.stream.makeAsyncIterator()
        for _ in running { _ = await signal.next() }
        let waiting = Task { try await ConcurrencyChecks.run(model, "Hello", .greedy(maxTokens: 4)) }
        while model.waitingRequests == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let asked = ContinuousClock.now
        do {
            _ = try await Fixtures.collect(model)
            Issue.record("a request past the queue's bound was served")
        } catch let error as LooplError {
            #expect(error.code == .busy, "\(error.code): \(error.message)")
        }
        #expect(ContinuousClock.now - asked < .seconds(2), "busy was not immediate")
        for task in running { task.cancel() }
        #expect(try await waiting.value.text == "Hello! How can")
        await model.close()
    }

    /// A worker that dies fails every request in flight, each with its own engine-loss error; the
    /// next request starts one new worker.
    @Test(.timeLimit(.minutes(1)))
    func aCrashFailsEveryRequestInFlight() async throws {
        let marker = Fixtures.markerPath()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let model = try await Self.start(["--fault", "crash", "--fault-after", "3", "--fault-once", marker, "--delay-ms", "20"])
        let first = model.workerPID
        let results = await ConcurrencyChecks(model: model).together { _ in .greedy(maxTokens: 8) }
        for result in results {
            guard case .failure(let error as LooplError) = result else {
                Issue.record("a request in flight survived the crash: \(result)")
                continue
            }
            #expect(error.code == .processFailed && error.isEngineLoss, "\(error.code): \(error.message)")
            #expect(error.message.contains("exited with status 7 mid-stream"), "\(error.message)")
        }
        let after = await ConcurrencyChecks(model: model).together { _ in .greedy(maxTokens: 4) }
        #expect(after.allSatisfy { (try? $0.get().text) == "Hello! How can" }, "\(after)")
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
        let model = try await Self.start(["--fault", fault, "--fault-after", "2", "--fault-once", marker], idle: .seconds(2))
        let results = await ConcurrencyChecks(model: model).together { _ in .greedy(maxTokens: 8) }
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
        let checks = ConcurrencyChecks(model: model)
        let turns = try await checks.together { checks.options($0) }.map { try $0.get() }
        #expect(turns.map(\.text) == checks.prompts)
        var thinking = GenerationOptions.greedy(maxTokens: 12)
        thinking.reasoning = .on
        let turn = try await ModelConformance(model: model).run("v1", [.user("Hello")], options: thinking)
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
