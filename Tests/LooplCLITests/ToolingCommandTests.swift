import Foundation
import Loopl
@testable import LooplCLI
import LooplTestKit
import Testing

/// parse, template, inspect and grammar through the real binary (they read files and standard input).
@Suite struct ToolingCommandTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl")

    /// Runs the built `loopl`; one still running after `limit` is killed (and exits with SIGKILL's status).
    static func loopl(_ arguments: [String], input: String = "", within limit: Duration? = nil) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        process.environment = environmentWithFreshPromptCache()
        try process.run()
        let pid = process.processIdentifier
        let killer = DispatchWorkItem { kill(pid, SIGKILL) }
        if let limit { DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(limit.components.seconds)), execute: killer) }
        defer { killer.cancel() }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    static func temporary(_ text: String, _ suffix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-\(UUID())\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: ["", "<tool_call>{\"name\": ", "\u{0}\u{1}garbage [TOOL_CALLS]", "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"])
    func parseAlwaysExitsZeroWithJSON(_ input: String) throws {
        let result = try Self.loopl(["parse"], input: input)
        #expect(result.status == 0)
        #expect(try JSONValue(parsing: result.out) == ToolCallParser(format: .auto).parse(input).jsonValue, "\(result.out)")
    }

    @Test func parsePrintsTheCallsAndTheText() throws {
        let result = try Self.loopl(["parse"], input: "Sure. <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1, \"é\"]}}</tool_call>")
        #expect(try JSONValue(parsing: result.out) == ["content": "Sure.", "tool_calls": [["name": "f", "arguments": ["a": [1, "é"]]]]],
                "\(result.out)")
    }

    @Test func parseWithAnUnknownFormatNamesTheValidOnes() throws {
        let result = try Self.loopl(["parse", "--format", "hermes2"], input: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
        #expect(result.status == 2 && result.out.isEmpty)
        #expect(result.err.contains("--format: 'hermes2' is not a tool-call format; use one of auto, "), "\(result.err)")
        #expect(result.err.contains(", hermes,"), "\(result.err)")
    }

    @Test func parseRejectsUndeclaredTools() throws {
        let result = try Self.loopl(["parse", "--tools", "g"], input: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
        let value = try JSONValue(parsing: result.out)
        #expect(value["tool_calls"] == [])
        #expect(value["content"] == "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
        #expect(value["rejected"]?.arrayValue?.first?["name"] == "f")
        #expect(value["rejected"]?.arrayValue?.count == 1)
    }

    @Test func templateRenderPrintsExactlyTheRendering() throws {
        let template = try Self.temporary("{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ n }}", ".jinja")
        let context = try Self.temporary(#"{"messages": [{"role": "user", "content": "hé"}], "n": 1.0}"#, ".json")
        defer { [template, context].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let result = try Self.loopl(["template", "render", "--template", template, "--context", context])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "[user:hé]1.0")
        let broken = try Self.temporary("{% if %}", ".jinja")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let failed = try Self.loopl(["template", "render", "--template", broken, "--context", context])
        #expect(failed.status == 1)
        #expect(failed.out.isEmpty)
        #expect(!failed.err.isEmpty)
    }

    @Test func templateRenderWithTheModelsOwnTemplate() throws {
        let context = try Self.temporary(#"{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true}"#, ".json")
        defer { try? FileManager.default.removeItem(atPath: context) }
        let result = try Self.loopl(["template", "render", "--model", LooplHome.defaultModel, "--context", context])
        #expect(result.out == "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test func inspectPrintsMetadata() throws {
        let text = try Self.loopl(["inspect", LooplHome.defaultModel])
        #expect(text.status == 0)
        #expect(text.out.contains("architecture:   llama"))
        let json = try JSONValue(parsing: try Self.loopl(["inspect", "--json", LooplHome.defaultModel]).out)
        #expect(json["architecture"] == "llama")
        #expect(json["metadata"]?["general.architecture"]?["value"] == "llama")
        let missing = try Self.loopl(["inspect", "/nonexistent.gguf"])
        #expect(missing.status == 1)
    }

    @Test func grammarForASchemaAndForTools() throws {
        let schema = try Self.temporary(#"{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}"#, ".json")
        let tools = try Self.temporary(#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]"#, ".json")
        defer { [schema, tools].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let fromSchema = try Self.loopl(["grammar", "--schema", schema])
        #expect(fromSchema.status == 0)
        let expected = try JSONSchemaGrammar.convert(schema: ["type": "object", "properties": ["a": ["type": "integer"]], "required": ["a"]])
        #expect(fromSchema.out.trimmingCharacters(in: .newlines) == expected.gbnf.trimmingCharacters(in: .newlines))
        #expect(fromSchema.out.contains("root ::="))
        let fromTools = try Self.loopl(["grammar", "--tools", tools, "--family", "hermes"])
        #expect(fromTools.out.contains("<tool_call>"))
        let reasoning = try Self.loopl(["grammar", "--tools", tools, "--family", "deepseek-r1", "--parallel", "--thinking", "optional"])
        #expect(reasoning.status == 0 && reasoning.out.contains("<think>") && reasoning.out.contains("tool▁calls▁begin"))
        #expect(try Self.loopl(["grammar", "--tools", tools, "--thinking", "maybe"]).status == 2)
        #expect(try Self.loopl(["grammar"]).status == 2)
    }
}

@Suite struct BackendsCommandTests {
    @Test func builtInBackendsAreUsableAfterBootstrap() async throws {
        let result = await CapturedConsole.run(["backends", "--json"])
        #expect(result.status == .success)
        let value = try JSONValue(parsing: result.out)
        for name in ["llama", "server", "stdio", "isolated"] {
            #expect(value["backends"]?[name]?["usable"] == true, "\(name): \(value["backends"]?[name]?["reason"] ?? "")")
        }
    }

    @Test func aMissingModelSaysWhy() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-config-\(UUID()).json").path
        try #"{"default": "x", "backends": {"x": {"kind": "llama", "model": "/nowhere/m.gguf"}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await CapturedConsole.run(["backends", "--config", path])
        #expect(result.out.contains("x          llama   not usable: no model file at /nowhere/m.gguf (default)"), "\(result.out)")
    }
}
