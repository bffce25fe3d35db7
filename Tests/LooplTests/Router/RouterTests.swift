import Foundation
@testable import Loopl
import LooplTestKit
import Synchronization
import Testing

@Suite struct RouterTests {
    static let full = """
        {"default": "llama", "fallback": ["server", "stdio"], "backends": {
          "llama": {"kind": "llama", "model": "/m.gguf", "contextLength": 4096, "threads": 2, "batchSize": 512, "gpuLayers": 0},
          "server": {"kind": "server", "model": "/m.gguf", "binary": "/bin/llama-server", "contextLength": 4096, "threads": 2, "extraArgs": ["--foo"]},
          "remote": {"kind": "server", "url": "http://127.0.0.1:8080", "apiKey": "k"},
          "stdio": {"kind": "stdio", "command": ["loopl", "worker", "--backend", "llama"], "initializeTimeoutSeconds": 30, "idleTimeoutSeconds": 60}}}
        """

    @Test func readsEveryKind() throws {
        let config = try LooplConfig(json: Self.full)
        #expect(config.defaultBackend == "llama")
        #expect(config.fallback == ["server", "stdio"])
        #expect(config.backends.count == 4)
        #expect(try config.backend("remote") == .server(.init(model: nil, url: "http://127.0.0.1:8080", apiKey: "k", binary: nil,
                                                               contextLength: nil, threads: nil, extraArgs: [])))
        #expect(try config.backend("stdio").kind == "stdio")
    }

    @Test(arguments: [
        (#"{"backends": {"a": {"kind": "llama", "model": "/m", "colour": "red"}}, "default": "a"}"#, "unknown key 'colour'"),
        (#"{"backends": {}, "default": "a", "extra": 1}"#, "unknown key 'extra'"),
        (#"{"backends": {"a": {"kind": "llama", "model": 5}}, "default": "a"}"#, "'model' must be a string"),
        (#"{"backends": {"a": {"kind": "llama", "model": "/m", "threads": "two"}}, "default": "a"}"#, "'threads' must be a whole number"),
        (#"{"backends": {"a": {"kind": "quantum"}}, "default": "a"}"#, "unknown kind 'quantum'"),
        (#"{"backends": {"a": {"kind": "server"}}, "default": "a"}"#, "either 'model'"),
        (#"{"backends": {"a": {"kind": "stdio", "command": []}}, "default": "a"}"#, "non-empty 'command'"),
        (#"{"backends": {"a": {"kind": "llama", "model": "/m"}}, "default": "b"}"#, "'b' is named as default"),
        (#"[1]"#, "top level must be an object"),
        (#"{"backends": "#, "not valid JSON"),
    ])
    func badConfigsAreClearErrors(_ text: String, _ message: String) {
        do {
            _ = try LooplConfig(json: text)
            Issue.record("accepted: \(text)")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func precedenceExplicitThenEnvironmentThenDefaults() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-config-\(UUID()).json").path
        try #"{"default": "x", "backends": {"x": {"kind": "llama", "model": "/x.gguf"}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try LooplConfig.load(explicit: path, workerCommand: ["loopl"]).defaultBackend == "x")
        #expect(throws: LooplError.self) { try LooplConfig.load(explicit: path + ".missing", workerCommand: ["loopl"]) }
        let builtIn = LooplConfig.builtIn(workerCommand: ["/bin/loopl"])
        #expect(builtIn.backends.keys.sorted() == ["llama", "server", "stdio"])
        #expect(try builtIn.backend("stdio") == .stdio(.init(command: ["/bin/loopl", "worker", "--backend", "llama"],
                                                             initializeTimeoutSeconds: 30, idleTimeoutSeconds: 60)))
        #expect(throws: LooplError.self) { try builtIn.backend("nope") }
    }

    /// A router over backends a, b and c (in that order of fallback); `failures` names how a backend
    /// fails: "start", "generate" (before its first token) or "late" (after it). `made` collects the
    /// models the router started.
    static func router(_ failures: [String: String], made: Started = Started()) throws -> Router {
        let config = try LooplConfig(json: """
            {"default": "a", "fallback": ["b", "c"], "backends": {
              "a": {"kind": "llama", "model": "/a"}, "b": {"kind": "llama", "model": "/b"}, "c": {"kind": "llama", "model": "/c"}}}
            """)
        return Router(config: config) { name, _ in
            if failures[name] == "start" { throw LooplError(.modelNotFound, "\(name) cannot start") }
            let fails = failures[name] == "generate"
            let model = ScriptedModel(style: .text(.hermes)) { _ in
                fails ? ScriptedTurn([]) : .text(["from ", name])
            }
            made.models.withLock { $0[name] = model }
            return model.failing(fails ? "before" : (failures[name] == "late" ? "after" : nil))
        }
    }

    @Test func fallbackBeforeTheFirstTokenWithAWarning() async throws {
        let warnings = Mutex<[String]>([])
        let model = try await Self.router(["a": "start", "b": "generate"]).model(named: nil) { w in warnings.withLock { $0.append(w) } }
        let turn = try await ModelConformance(model: model).run("fallback", [.user("hi")], options: .greedy())
        #expect(turn.text == "from c")
        #expect(warnings.withLock { $0.count } == 2)
        #expect(warnings.withLock { $0 }.allSatisfy { $0.contains("Falling back") })
    }

    @Test func anExplicitBackendNeverFallsBack() async throws {
        await #expect(throws: LooplError.self) { _ = try await Self.router(["a": "start"]).model(named: "a") }
    }

    /// Only the first backend fails, after its first token: the error reaches the caller, and the
    /// fallbacks, which would have answered, are never asked.
    @Test func errorsAfterTheFirstTokenPropagate() async throws {
        let made = Started()
        let model = try await Self.router(["a": "late"], made: made).model(named: nil)
        var text = ""
        do {
            for try await event in model.generate(messages: [.user("hi")], tools: [], options: .greedy()) {
                if case .text(let chunk) = event { text += chunk }
            }
            Issue.record("the late failure was swallowed; the turn read \(text.debugDescription)")
        } catch let error as LooplError {
            #expect(error.code == .processFailed)
            #expect(error.message == "died mid-stream")
        }
        #expect(text == "from ")
        let asked = made.models.withLock { $0.mapValues { $0.requests.count } }
        #expect(asked["a"] == 1)
        #expect(asked["b", default: 0] == 0 && asked["c", default: 0] == 0, "asked: \(asked)")
    }

    @Test func textCallsAreLiftedBehindTheRoute() async throws {
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "llama", "model": "/a"}}}"#)
        let call = ToolCall(name: "f", arguments: ["x": 1])
        let router = Router(config: config) { _, _ in ScriptedModel(style: .text(.hermes), turns: [.toolCallText([call])]) }
        let model = try await router.model(named: nil)
        #expect(model.toolCallStyle == .native)
        let turn = try await ModelConformance(model: model).run("lift", [.user("go")], tools: [ToolSpec(name: "f", description: "")], options: .greedy())
        #expect(turn.toolCalls.map(\.name) == ["f"])
        #expect(turn.text.isEmpty)
    }
}

/// The models a test's router started, by backend name.
final class Started: Sendable {
    let models = Mutex<[String: ScriptedModel]>([:])
}

/// A model that fails before or after its first event.
struct FailingModel: Model {
    let base: ScriptedModel
    let when: String
    var toolCallStyle: ToolCallStyle { base.toolCallStyle }
    var contextSize: Int { get async throws { try await base.contextSize } }
    func close() async { await base.close() }
    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        let stream = base.generate(messages: messages, tools: tools, options: options)
        let when = self.when
        return AsyncThrowingStream { continuation in
            let task = Task {
                if when == "before" { return continuation.finish(throwing: LooplError(.processFailed, "died at once")) }
                for try await event in stream {
                    continuation.yield(event)
                    return continuation.finish(throwing: LooplError(.processFailed, "died mid-stream"))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension ScriptedModel {
    func failing(_ when: String?) -> any Model {
        guard let when else { return self }
        return FailingModel(base: self, when: when)
    }
}
