import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
@testable import LooplServer
import LooplTestKit
import Synchronization
import Testing

/// The backend on a real child llama-server and the default model. One server at a time.
@Suite(.serialized) struct LlamaServerModelTests {
    /// A child that renders with llama-server's own template (`/v1/chat/completions`).
    static func configuration(context: Int = 2048, parallel: Int = 4) -> LlamaServerModel.Configuration {
        .init(rendering: .server, contextLength: context, parallel: parallel, threads: 2)
    }

    /// Runs `body` on a fresh child model and always closes it.
    static func withModel(context: Int = 2048, parallel: Int = 4, _ body: (LlamaServerModel) async throws -> Void) async throws {
        try await ServerConcurrencyTests.withModel(Self.configuration(context: context, parallel: parallel), body)
    }

    /// Streams a long answer until the first text arrives, then hands the consumer task back;
    /// `onText` sees each text event.
    static func startLongAnswer(_ model: LlamaServerModel, messages: [Message] = ModelConformance.greeting, maxTokens: Int = 1500,
                                onText: @escaping @Sendable () -> Void = {}) async throws -> Task<Result<Void, any Error>, Never> {
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.backend.ignoreEndOfGeneration = true
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task { () -> Result<Void, any Error> in
            do {
                var signalled = false
                for try await event in model.generate(messages: messages, tools: [], options: options) {
                    guard case .text = event else { continue }
                    onText()
                    if !signalled { signalled = true; started.continuation.yield() }
                }
                return .success(())
            } catch {
                started.continuation.finish()
                return .failure(error)
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        return consumer
    }

    /// The cells a slot held when it was released: the last `stop processing` line of llama-server's log.
    static func releasedCells(in log: String) -> Int? {
        guard let line = log.split(separator: "\n").last(where: { $0.contains("stop processing: n_tokens = ") }),
              let range = line.firstRange(of: "n_tokens = ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The tokens a server may decode after the host cancels: those in flight, and those decoded
    /// before it sees the connection close (a token or two at the default model's speed).
    static let tokensPastACancel = 16

    @Test(.timeLimit(.minutes(10)))
    func conformance() async throws {
        let model = try await LlamaServerModel.start(Self.configuration())
        let suite = ModelConformance(model: model, places: 4)
        try await suite.checkPlainAnswer()
        try await suite.checkMaxTokens()
        try await suite.checkStopString()
        try await suite.checkCancellation()
        try await suite.checkContextOverflow()
        let pid = try #require(await model.serverProcessID)
        try await suite.checkCloseTwice()
        #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(1)), "the child outlived close()")
    }

    @Test(.timeLimit(.minutes(5)))
    func streamedAnswerWithMetricsFromTimings() async throws {
        try await Self.withModel { model in
            // After the child dies, concurrent callers start one new child between them.
            let dead = try #require(await model.serverProcessID)
            kill(dead, SIGKILL)
            #expect(await ProcessWatch.waitUntilGone(dead, timeout: .seconds(5)))
            for _ in 0..<100 where await model.session.currentChild?.process.exitStatus == nil {
                try await Task.sleep(for: .milliseconds(50))
            }
            let before = Self.ownLlamaServers()
            async let size = model.contextSize
            async let again = model.contextSize
            #expect(try await size == 2048)
            #expect(try await again == 2048)
            #expect(Self.ownLlamaServers().subtracting(before).count == 1, "concurrent calls started more than one child")
            let load = try #require(await model.loadTime)
            #expect(load > .zero && load < .seconds(120))
            let suite = ModelConformance(model: model)
            let first = try await suite.run("stream", ModelConformance.greeting, options: .greedy(maxTokens: 24))
            #expect(!first.text.isEmpty)
            let metrics = try #require(first.metrics.last)
            #expect(metrics.finished && !metrics.estimated)
            #expect(metrics.promptTokens > 10 && metrics.generatedTokens > 0 && metrics.generatedTokens <= 24)
            #expect(metrics.contextMax == 2048 && metrics.contextUsed == metrics.promptTokens + metrics.generatedTokens)
            #expect((metrics.tokensPerSecond ?? 0) > 0 && (metrics.ttftMs ?? 0) > 0)
            var long = GenerationOptions.greedy(maxTokens: 300)
            long.backend.ignoreEndOfGeneration = true
            let streamed = try await suite.run("stream", ModelConformance.greeting, options: long)
            let interim = streamed.metrics.dropLast()
            #expect(!interim.isEmpty && interim.allSatisfy { !$0.finished && !$0.estimated }, "no metrics while generating")
            #expect(streamed.metrics.last?.generatedTokens == 300)
            let second = try await suite.run("stream", ModelConformance.greeting, options: .greedy(maxTokens: 24))
            #expect(second.text == first.text, "greedy answers differ")
            let cached = try #require(second.metrics.last)
            #expect(cached.promptTokens == metrics.promptTokens)
            #expect(cached.cachedPromptTokens >= metrics.promptTokens - 1 && cached.cachedPromptTokens > 0, "\(cached)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellationStopsGenerationOnTheServer() async throws {
        try await Self.withModel { model in
            let texts = Atomic<Int>(0)
            let consumer = try await Self.startLongAnswer(model) { texts.add(1, ordering: .relaxed) }
            let pid = try #require(await model.serverProcessID)
            let child = await model.session.currentChild
            let received = texts.load(ordering: .relaxed)
            consumer.cancel()
            _ = await consumer.value
            // The server's own view: the slot that ran is released, and its cache holds the prompt
            // and the tokens decoded, within a few of those the host had when it cancelled. (Once a
            // slot is idle, /slots shows n_decoded 0: the release line in the log counts its cells.)
            let process = try #require(child?.process)
            var cells: Int?
            let deadline = ContinuousClock.now + .seconds(5)
            while cells == nil, ContinuousClock.now < deadline {
                cells = Self.releasedCells(in: process.lastLines)
                if cells == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let held = try #require(cells, "the server still generates 5 s after the cancellation: \(process.lastLines)")
            // The same prompt again, for its length.
            let turn = try await ModelConformance(model: model).run("after", ModelConformance.greeting, options: .greedy(maxTokens: 4))
            #expect(!turn.text.isEmpty)
            let prompt = try #require(turn.metrics.last?.promptTokens)
            let decoded = held - prompt
            #expect(decoded >= received - 1 && decoded <= received + Self.tokensPastACancel,
                    "the server decoded \(decoded) tokens; the host had \(received) when it cancelled")
            #expect(await model.serverProcessID == pid, "the child was restarted: the server did not stop generating")
        }
    }

    /// A child that does not confirm it stopped within the grace period is replaced. With one
    /// slot, the next request waits for the check.
    @Test(.timeLimit(.minutes(5)))
    func aChildThatDoesNotStopIsRestarted() async throws {
        try await Self.withModel(parallel: 1) { model in
            let consumer = try await Self.startLongAnswer(model)
            let pid = try #require(await model.serverProcessID)
            kill(pid, SIGSTOP)
            consumer.cancel()
            _ = await consumer.value
            let start = ContinuousClock.now
            let turn = try await ModelConformance(model: model).run("after", ModelConformance.greeting, options: .greedy(maxTokens: 4))
            #expect(!turn.text.isEmpty)
            #expect(ContinuousClock.now - start >= .seconds(2), "the next request did not wait for the check")
            let newPID = try #require(await model.serverProcessID)
            #expect(newPID != pid)
            #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(5)), "the stopped child was not ended")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func killedChildFailsTheRequestAndTheNextOneRecovers() async throws {
        try await Self.withModel { model in
            let consumer = try await Self.startLongAnswer(model)
            let pid = try #require(await model.serverProcessID)
            kill(pid, SIGKILL)
            let result = await consumer.value
            guard case .failure(let error) = result else {
                Issue.record("the request went on after its server was killed")
                return
            }
            let typed = try #require(error as? LooplError)
            #expect(typed.code == .processFailed, "\(typed)")
            #expect(typed.message.contains("signal 9"), "\(typed.message)")
            let turn = try await ModelConformance(model: model).run("recover", ModelConformance.greeting, options: .greedy(maxTokens: 4))
            #expect(!turn.text.isEmpty)
            let newPID = try #require(await model.serverProcessID)
            #expect(newPID != pid)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func badModelPathsAreTypedErrors() async throws {
        await #expect { _ = try await LlamaServerModel.start(.init(target: .child(model: "/nonexistent/model.gguf"))) } throws: {
            ($0 as? LooplError)?.code == .modelNotFound
        }
        await #expect { _ = try await LlamaServerModel.start(.init(target: .child(model: FileManager.default.temporaryDirectory.path))) } throws: {
            ($0 as? LooplError)?.code == .invalidModel && ($0 as? LooplError)?.message.contains("is a directory") == true
        }

        let junk = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-junk-\(UUID().uuidString).gguf")
        try Data("this is not a GGUF file".utf8).write(to: junk)
        defer { try? FileManager.default.removeItem(at: junk) }
        let before = Self.ownLlamaServers()
        do {
            _ = try await LlamaServerModel.start(.init(target: .child(model: junk.path), rendering: .server, contextLength: 256, threads: 1))
            Issue.record("a junk model file loaded")
        } catch let error as LooplError {
            #expect(error.code == .invalidModel, "\(error)")
            #expect(error.message.contains("failed to load model") || error.message.contains("gguf"), "\(error.message)")
        }
        #expect(Self.ownLlamaServers().subtracting(before).isEmpty, "a child outlived its failed start")
    }

    @Test(.timeLimit(.minutes(5)))
    func threeModelsGetThreePorts() async throws {
        let models = try await withThrowingTaskGroup(of: LlamaServerModel.self) { group in
            for _ in 0..<3 { group.addTask { try await LlamaServerModel.start(.init(contextLength: 256, threads: 1)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var ports: Set<Int> = []
        var pids: [Int32] = []
        for model in models {
            ports.insert(try #require(await model.serverURL?.port))
            pids.append(try #require(await model.serverProcessID))
        }
        #expect(ports.count == 3)
        for model in models {
            let turn = try await ModelConformance(model: model).run("three", ModelConformance.greeting, options: .greedy(maxTokens: 2))
            #expect(turn.metrics.last?.finished == true)
            await model.close()
        }
        for pid in pids { #expect(await ProcessWatch.waitUntilGone(pid, timeout: .seconds(2))) }
    }

    /// A port taken between the probe and the child's bind makes the child fail; a new port is tried.
    @Test(.timeLimit(.minutes(3)))
    func aTakenPortIsRetried() async throws {
        let squatter = try FakeServer { _ in FakeServer.json(404, "{}") }
        defer { squatter.stop() }
        let ports = Mutex([squatter.port])
        let configuration = LlamaServerModel.Configuration(contextLength: 256, threads: 1)
        let child = try await ServerChild.start(model: LooplHome.defaultModel, configuration: configuration) {
            try ports.withLock { $0.isEmpty ? try FreePort.find() : $0.removeFirst() }
        }
        #expect(child.port != squatter.port)
        #expect(try await child.endpoint.fetch("/health").status == 200)
        await child.stop()
    }

    @Test(.timeLimit(.minutes(3)))
    func requestsWithoutTheKeyAreRefused() async throws {
        try await Self.withModel(context: 512) { model in
            let url = try #require(await model.serverURL)
            let anonymous = try await ServerEndpoint(baseURL: url, apiKey: nil)
                .fetch("/v1/chat/completions", method: "POST", body: ["messages": [["role": "user", "content": "hi"]], "max_tokens": 1])
            #expect(anonymous.status == 401)
            let key = await model.session.currentChild?.endpoint.apiKey ?? ""
            #expect(key.count == 64 && key.allSatisfy(\.isHexDigit), "the key is not 256 random bits: \(key)")
            await #expect {
                let intruder = try await LlamaServerModel.start(.init(target: .attach(url: url, apiKey: "wrong")))
                _ = try await ModelConformance(model: intruder).run("intruder", ModelConformance.greeting, options: .greedy(maxTokens: 1))
            } throws: { ($0 as? LooplError)?.code == .unauthorized }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func attachesToARunningServer() async throws {
        // The first port offered is taken, as by another process after the probe: the next one is tried.
        let squatter = try FakeServer { _ in FakeServer.json(404, "{}") }
        defer { squatter.stop() }
        let ports = Mutex([squatter.port])
        let plain = try await PlainServer.start(["-c", "1024", "-np", "1", "-t", "2"]) {
            try ports.withLock { $0.isEmpty ? try FreePort.find() : $0.removeFirst() }
        }
        let server = plain.process
        #expect(plain.endpoint.baseURL.port != squatter.port)
        let model = try await LlamaServerModel.start(.init(target: .attach(url: plain.endpoint.baseURL, apiKey: nil)))
        guard try await model.contextSize == 1024 else {
            await server.terminate()
            Issue.record("the attached server's context is not its own")
            return
        }
        #expect(await model.serverProcessID == nil)
        let suite = ModelConformance(model: model)
        try await suite.checkPlainAnswer()
        try await suite.checkMaxTokens()
        let turn = try await suite.run("attach", ModelConformance.greeting, options: .greedy(maxTokens: 8))
        #expect(turn.metrics.last?.estimated == false)
        await model.close()
        #expect(server.exitStatus == nil, "closing an attached model must not stop the server")
        await server.terminate()
    }

    /// The llama-server processes this test process started that still run.
    static func ownLlamaServers() -> Set<Int32> {
        Set(ProcessWatch.children(of: getpid()).filter { ProcessWatch.command(of: $0).hasPrefix("llama-server") })
    }
}

/// The own-rendering path: Loopl renders the prompt and a grammar, llama-server's `/completion` runs it.
@Suite(.serialized) struct RenderedPromptTests {
    @Test(.timeLimit(.minutes(10)))
    func conformanceThroughCompletion() async throws {
        // A child renders with Loopl's engine by default.
        let model = try await LlamaServerModel.start(.init(contextLength: 2048, threads: 2))
        do {
            var long = GenerationOptions.greedy(maxTokens: 200)
            long.backend.ignoreEndOfGeneration = true
            let streamed = try await ModelConformance(model: model).run("interim", ModelConformance.greeting, options: long)
            let interim = streamed.metrics.dropLast()
            #expect(!interim.isEmpty && interim.allSatisfy { !$0.finished && !$0.estimated }, "no exact metrics while generating")
            #expect(streamed.metrics.last?.generatedTokens == 200 && streamed.metrics.last?.stopReason == .maxTokens)
            try await ModelConformance(model: model, places: 4).runAll()
        } catch {
            await model.close()
            throw error
        }
    }

    /// The body sent to /completion: the rendered prompt, its grammar, exact token limits.
    @Test(.timeLimit(.minutes(1)))
    func completionRequestCarriesPromptAndGrammar() async throws {
        let server = try FakeServer { request in
            if request.line.hasPrefix("GET /props") { return FakeServer.props() }
            if request.line.hasPrefix("POST /tokenize") { return FakeServer.tokenize(request) }
            return FakeServer.events([#"{"content":"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>","stop":false}"#,
                                      #"{"content":"","stop":true,"stop_type":"eos","tokens_predicted":20,"tokens_evaluated":50,"tokens_cached":0,"timings":{"cache_n":0,"prompt_n":50,"predicted_n":20,"predicted_per_second":50.0}}"#])
        }
        defer { server.stop() }
        let model = try await LlamaServerModel.start(.init(target: .attach(url: server.url, apiKey: nil),
                                                           rendering: .custom(ChatPromptRenderer(modelPath: LooplHome.defaultModel))))
        var options = GenerationOptions.greedy(maxTokens: 64)
        options.toolChoice = .required
        let turn = try await ModelConformance(model: model).run("completion", ModelConformance.weatherQuestion,
                                                                tools: [ModelConformance.weatherTool], options: options)
        await model.close()
        #expect(turn.toolCalls.first?.arguments["city"] == "Paris", "the call in the text was not lifted: \(turn.text.debugDescription)")
        #expect(turn.text.isEmpty)
        let metrics = try #require(turn.metrics.last)
        #expect(metrics.promptTokens == 50 && metrics.generatedTokens == 19 && metrics.stopReason == .toolCall)
        let request = try #require(server.requests.last)
        #expect(request.line.hasPrefix("POST /completion"))
        let body = try JSONValue(parsing: request.body)
        #expect(body["prompt"]?.stringValue?.hasSuffix("<|im_start|>assistant\n") == true)
        #expect(body["grammar"]?.stringValue?.contains("get_weather") == true)
        #expect(body["n_predict"] == 64 && body["stream"] == true)
    }
}
