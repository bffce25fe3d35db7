#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// The real model out of process: `loopl worker --backend llama` behind StdioModel.
@Suite(.serialized) struct LlamaOverStdioTests {
    @Test(.timeLimit(.minutes(10)))
    func conformance() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config],
            initializeTimeout: .seconds(60), idleTimeout: .seconds(120)))
        #expect(model.markup == nil, "the worker sends parsed events")
        let pid = try #require(model.workerPID)
        try await ModelConformance(model: model, places: 4).runAll()
        #expect(!ProcessWatch.isRunning(pid), "close() left the worker running")
    }

    /// Four conversations at once through `loopl worker`, which declares the llama backend's
    /// `parallel` (4); the queue's bound on the host.
    @Test(.timeLimit(.minutes(10)))
    func concurrency() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let configuration = StdioModel.Configuration(command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config],
                                                     initializeTimeout: .seconds(60), idleTimeout: .seconds(120))
        let model = try await StdioModel.start(configuration)
        #expect(model.info.protocolVersion == StdioProtocol.version && model.info.embeddings && model.info.concurrentRequests == 4 && model.parallel == 4)
        let pid = model.workerPID
        try await ModelConformance(model: model).runConcurrency(count: 4)
        #expect(model.workerPID == pid, "a cancellation or an error of one request restarted the worker")
        await model.close()
        var bounded = configuration
        (bounded.parallel, bounded.maxQueue) = (2, 1)
        let small = try await StdioModel.start(bounded)
        try await ModelConformance(model: small).checkQueueBoundGivesBusy(parallel: 2, maxQueue: 1)
        await small.close()
    }

    /// A worker whose template opens thinking: its text starts with the opening marker, so the
    /// host's Agent lifts the thinking as reasoning.
    @Test(.timeLimit(.minutes(5)))
    func reasoningThroughTheWorker() async throws {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-thinking-\(UUID()).jinja").path
        try ModelConformance.reasoningTemplate.write(toFile: template, atomically: true, encoding: .utf8)
        let config = try Fixtures.llamaConfig(chatTemplateFile: template)
        defer { for file in [template, config] { try? FileManager.default.removeItem(atPath: file) } }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config],
            initializeTimeout: .seconds(60), idleTimeout: .seconds(120)))
        try await ModelConformance(model: model).checkReasoningThePromptOpened()
        await model.close()
    }

    /// `loopl worker` offered version 1 answers as version 1: one request at a time, and a
    /// second one while the first runs is refused with -32600.
    @Test(.timeLimit(.minutes(5)))
    func workerSpeaksVersion1ToAVersion1Host() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (connection, info) = try await StdioModel.connect(StdioModel.Configuration(
            command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config], initializeTimeout: .seconds(60)), version: 1)
        #expect(info.protocolVersion == 1 && info.concurrentRequests == 1 && !info.reasoning)
        #expect(info.wireValue["capabilities"]?["concurrentRequests"] == nil)
        var options = GenerationOptions.greedy(maxTokens: 16)
        options.backend.ignoreEndOfGeneration = true
        let params: JSONValue = ["messages": [Message.user("Hello").templateValue], "tools": [], "options": try JSONValue(encoding: options)]
        try connection.send(.request(id: 1, method: "generate", params: params))
        try connection.send(.request(id: 2, method: "generate", params: params))
        var answers: [JSONValue: Result<JSONValue, RPCError>] = [:]
        while answers.count < 2, let message = try? await connection.mailbox.receive(timeout: .seconds(60), cancellable: true) {
            if case .response(let id, let result) = message { answers[id] = result }
        }
        await connection.stop()
        guard case .success? = answers[1], case .failure(let refusal)? = answers[2] else {
            Issue.record("expected the first to answer and the second to be refused: \(answers)")
            return
        }
        #expect(refusal.code == StdioProtocol.ErrorCode.invalidRequest, "\(refusal)")
    }

    /// The host (`loopl run --backend stdio`) is killed with SIGKILL mid-generation: its worker
    /// must be gone within 5 s.
    @Test(.timeLimit(.minutes(5)))
    func workerDiesWithItsHost() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let host = Process()
        host.executableURL = URL(fileURLWithPath: Fixtures.loopl)
        host.arguments = ["run", "--config", config, "--backend", "stdio", "--json", "--max-tokens", "600",
                          "--temperature", "0", "Write a very long story about a lighthouse."]
        let out = Pipe()
        host.standardOutput = out
        let err = Pipe()
        host.standardError = err
        try host.run()
        defer { if host.isRunning { kill(host.processIdentifier, SIGKILL) } }
        var seen = ""
        while !seen.contains("\"event\":\"text\"") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains("\"event\":\"text\""), "the host printed no text: \(seen.prefix(300)) \(host.isRunning ? "" : String(decoding: err.fileHandleForReading.readDataToEndOfFile().suffix(600), as: UTF8.self)))")
        let workers = ProcessWatch.children(of: host.processIdentifier)
        try #require(workers.count == 1, "expected one worker child, found \(workers)")
        let worker = workers[0]
        #expect(ProcessWatch.isRunning(worker))
        kill(host.processIdentifier, SIGKILL)
        host.waitUntilExit()
        #expect(await ProcessWatch.waitUntilGone(worker, timeout: .seconds(5)), "the worker \(worker) outlived its host by 5 s")
        if ProcessWatch.isRunning(worker) { kill(worker, SIGKILL) }
    }

    /// A damaged model behind `loopl worker`: the worker fails to load it and exits; the host gets
    /// a typed error carrying the worker's reason, within seconds, and carries on.
    @Test(.timeLimit(.minutes(3)), arguments: [GGUFCorruption.truncatedInWeights, .layers1000, .tensorType99])
    func corruptModelThroughTheWorker(_ corruption: GGUFCorruption) async throws {
        let model = try Data(contentsOf: URL(fileURLWithPath: Fixtures.modelPath), options: .alwaysMapped)
        let directory = FileManager.default.temporaryDirectory
        let path = directory.appendingPathComponent("loopl-corrupt-\(UUID()).gguf").path
        let config = directory.appendingPathComponent("loopl-corrupt-\(UUID()).json").path
        defer { for file in [path, config] { try? FileManager.default.removeItem(atPath: file) } }
        try #require(corruption.apply(to: model)).write(to: URL(fileURLWithPath: path))
        let settings: JSONValue = ["default": "llama", "backends": [
            "llama": ["kind": "llama", "model": .string(path), "contextLength": 256, "threads": 1,
                      "promptCacheDirectory": .string(freshPromptCacheFolder())],
        ]]
        try settings.jsonText().write(toFile: config, atomically: true, encoding: .utf8)
        let start = ContinuousClock.now
        do {
            let worker = try await StdioModel.start(StdioModel.Configuration(
                command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config], initializeTimeout: .seconds(60)))
            await worker.close()
            Issue.record("a damaged model (\(corruption)) loaded")
        } catch let error as LooplError {
            #expect(error.code == .processFailed, "\(error.code): \(error.message)")
            #expect(error.message.contains("before answering initialize"), "\(error.message)")
            #expect(error.message.contains("could not load") || error.message.contains("is corrupt"), "\(error.message)")
        }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
#endif
