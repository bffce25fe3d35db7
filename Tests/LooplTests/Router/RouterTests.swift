import Foundation
@testable import Loopl
import LooplTestKit
import Synchronization
import Testing

@Suite struct RouterTests {
    /// A kind for these tests: `{"kind": "test", "name": ..., "fails": "start" | "generate" | "late"}`.
    static let testKind = BackendKind(name: "test", builtIn: ["name": "built-in"], read: { section in
        (name: try section.string("name"), fails: try section.optionalString("fails"))
    }, problem: { entry in
        entry.name == "missing" ? "no model called missing" : nil
    }, start: { entry in
        if entry.fails == "start" { throw LooplError(.modelNotFound, "\(entry.name) cannot start") }
        let empty = entry.fails == "generate"
        let model = ScriptedModel(markup: .hermes) { _ in
            empty ? ScriptedTurn([]) : .text(["from ", entry.name])
        }
        started.models.withLock { $0[entry.name] = model }
        return model.failing(["generate": "before", "late": "after"][entry.fails ?? ""])
    })
    /// The models the test kind started, by name.
    static let started = Started()
    static let otherKind = BackendKind(name: "other", read: { section in try section.optionalInt("size") ?? 1 },
                                       start: { _ in ScriptedModel(turns: []) })
    static let kinds = [testKind, otherKind]

    static let full = """
        {"default": "a", "fallback": ["b"], "backends": {
          "a": {"kind": "test", "name": "a"},
          "b": {"kind": "test", "name": "b", "fails": "start"},
          "c": {"kind": "other", "size": 3}}}
        """

    @Test func readsEveryKindItIsGiven() throws {
        let config = try LooplConfig(json: Self.full, kinds: Self.kinds)
        #expect(config.defaultBackend == "a")
        #expect(config.fallback == ["b"])
        #expect(config.backends.count == 3)
        #expect(try config.backend("c").kind == "other")
        #expect(try config.backend("c").section == ["kind": "other", "size": 3])
        #expect(throws: LooplError.self) { try LooplConfig(json: Self.full, kinds: [Self.testKind]) }
    }

    @Test(arguments: [
        (#"{"backends": {"a": {"kind": "test", "name": "x", "colour": "red"}}, "default": "a"}"#, "unknown key 'colour'"),
        (#"{"backends": {}, "default": "a", "extra": 1}"#, "unknown key 'extra'"),
        (#"{"backends": {"a": {"kind": "test", "name": 5}}, "default": "a"}"#, "'name' must be a string"),
        (#"{"backends": {"a": {"kind": "other", "size": "two"}}, "default": "a"}"#, "'size' must be a whole number"),
        (#"{"backends": {"a": {"kind": "quantum"}}, "default": "a"}"#, "unknown kind 'quantum': use test, other"),
        (#"{"backends": {"a": {"kind": "test"}}, "default": "a"}"#, "'name' is missing"),
        (#"{"backends": {"a": {"name": "x"}}, "default": "a"}"#, "'kind' is missing"),
        (#"{"backends": {"a": {"kind": "test", "name": "x"}}, "default": "b"}"#, "'b' is named as default"),
        (#"[1]"#, "top level must be an object"),
        (#"{"backends": "#, "not valid JSON"),
    ])
    func badConfigsAreClearErrors(_ text: String, _ message: String) {
        do {
            _ = try LooplConfig(json: text, kinds: Self.kinds)
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
        try #"{"default": "x", "backends": {"x": {"kind": "test", "name": "x"}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try LooplConfig.load(explicit: path, kinds: Self.kinds).defaultBackend == "x")
        #expect(throws: LooplError.self) { try LooplConfig.load(explicit: path + ".missing", kinds: Self.kinds) }
        let builtIn = try LooplConfig.builtIn(kinds: Self.kinds)
        #expect(builtIn.backends.keys.sorted() == ["test"])
        #expect(builtIn.defaultBackend == "test")
        #expect(try builtIn.backend("test").section == ["kind": "test", "name": "built-in"])
        #expect(throws: LooplError.self) { try builtIn.backend("nope") }
    }

    @Test func aConfigWithoutBackendsUsesTheBuiltInOnes() throws {
        let config = try LooplConfig(json: #"{"fallback": []}"#, kinds: Self.kinds)
        #expect(config.backends.keys.sorted() == ["test"])
        #expect(config.defaultBackend == "test")
    }

    @Test func aBackendSaysWhatKeepsItFromRunning() throws {
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test", "name": "missing"}, "b": {"kind": "test", "name": "b"}}}"#,
                                     kinds: Self.kinds)
        #expect(try config.backend("a").problem == "no model called missing")
        #expect(try config.backend("b").problem == nil)
    }

    @Test func overridesAreWrittenThroughTheKind() throws {
        var config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "other", "size": 2}}}"#, kinds: Self.kinds)
        #expect(throws: LooplError.self) { try config.apply(BackendOverrides(threads: 3)) }  // "other" reads no "threads" key
        try config.apply(BackendOverrides())  // nothing to write: nothing checked
        let threaded = BackendKind(name: "other", read: { section in
            (try section.optionalInt("threads"), try section.optionalString("model"))
        }, start: { _ in ScriptedModel(turns: []) })
        config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "other"}}}"#, kinds: [threaded])
        try config.apply(BackendOverrides(model: "/m.gguf", threads: 3))
        #expect(try config.backend("a").section == ["kind": "other", "model": "/m.gguf", "threads": 3])
        let custom = BackendKind(name: "other", read: { section in try section.optionalStrings("command") }, capacity: { _ in nil },
                                 override: { section, overrides in section["command"] = .array(overrides.workerArguments.map(JSONValue.string)) },
                                 start: { _ in ScriptedModel(turns: []) })
        config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "other"}}}"#, kinds: [custom])
        try config.apply(BackendOverrides(model: "/m.gguf", threads: 3, contextLength: 512, gpuLayers: 9))
        #expect(try config.backend("a").section["command"] == ["--model", "/m.gguf", "--threads", "3", "--ctx-size", "512", "--gpu-layers", "9"])
    }

    /// A router over backends a, b and c (in that order of fallback); `failures` names how a backend
    /// fails: "start", "generate" (before its first token) or "late" (after it). Each model is
    /// named `prefix` and its backend's name, and kept in ``started`` under that name.
    static func router(_ failures: [String: String], prefix: String = "") throws -> Router {
        let entries = ["a", "b", "c"].map { name in
            "\"\(name)\": {\"kind\": \"test\", \"name\": \"\(prefix)\(name)\"" + (failures[name].map { ", \"fails\": \"\($0)\"" } ?? "") + "}"
        }
        let config = try LooplConfig(json: #"{"default": "a", "fallback": ["b", "c"], "backends": {"# + entries.joined(separator: ", ") + "}}",
                                     kinds: Self.kinds)
        return Router(config: config)
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
        let prefix = "late-\(UUID())-"
        let model = try await Self.router(["a": "late"], prefix: prefix).model(named: nil)
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
        let asked = Self.started.models.withLock { models in
            ["a", "b", "c"].map { models[prefix + $0]?.requests.count ?? 0 }
        }
        #expect(asked == [1, 0, 0], "requests to a, b and c")
    }

    @Test func textCallsAreLiftedBehindTheRoute() async throws {
        let call = ToolCall(name: "f", arguments: ["x": 1])
        let kind = BackendKind(name: "test", read: { _ in () }, start: { ScriptedModel(markup: .hermes, turns: [.toolCallText([call])]) })
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test"}}}"#, kinds: [kind])
        let model = try await Router(config: config).model(named: nil)
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
