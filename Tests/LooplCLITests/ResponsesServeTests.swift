import Foundation
import Loopl
import Testing

/// OpenAI's Responses API on `loopl serve` as the real `openai` SDK sees it: the default model in
/// process, the scripted thinking worker, a worker that crashes mid-stream, and the store on disk.
@Suite(.serialized) struct ResponsesServeTests {
    /// Runs the Responses checks `names` of `responses_check.py` against `model`; records each failure.
    static func expectChecks(_ server: ServeProcess, _ names: [String], model: String, key: String = "none",
                             extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("responses_check.py", ["--base-url", server.baseURL, "--api-key", key, "--model", model] + extra,
                          checks: names, sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(10)))
    func theOpenAISDKGetsResponsesFromTheInProcessModel() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig())
        try Self.expectChecks(server, ["create", "stream", "tools", "json-schema", "previous", "get-delete", "other-tools", "errors"],
                              model: "llama", key: "secret")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(5)))
    func storedResponsesOutliveARestartInPrivateFiles() throws {
        try ServeTests.requireModel()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-responses-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = try ServeProcess.llamaConfig(serve: ["responsesDir": .string(folder)])
        let first = try ServeProcess([], config: config)
        try Self.expectChecks(first, ["create"], model: "llama")
        #expect(first.stop().status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        try #require(files.count == 1 && files[0].hasPrefix("resp_") && files[0].hasSuffix(".json"), "\(files)")
        var info = stat()
        #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(folder + "/" + files[0], &info) == 0 && info.st_mode & 0o777 == 0o600)
        let second = try ServeProcess([], config: config)
        try Self.expectChecks(second, ["retrieve"], model: "llama", extra: ["--response-id", String(files[0].dropLast(5))])
        #expect(second.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func aLongPromptGetsKeepAliveCommentsBeforeTheFirstEvent() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig(serve: ["keepAliveSeconds": 0.05]))
        try Self.expectChecks(server, ["keepalive"], model: "llama")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func reasoningIsAReasoningItemAndAnEngineLostMidStreamFailsTheResponse() throws {
        let workers = try ServeProcess([], config: ServeProcess.clients + "/serve-workers.json")
        try Self.expectChecks(workers, ["reasoning"], model: "thinking")
        #expect(workers.stop().status == 0)
        let worker: [JSONValue] = ["python3", "backends/python/worker.py", "--script", "backends/python/script.json",
                                   "--fault", "crash", "--fault-after", "2"]
        let crashing = try ServeProcess([], config: try ServeProcess.config(["default": "late", "backends": ["late": ["kind": "stdio", "command": .array(worker)]]]))
        try Self.expectChecks(crashing, ["failed"], model: "late")
        #expect(crashing.stop().status == 0)
    }
}
