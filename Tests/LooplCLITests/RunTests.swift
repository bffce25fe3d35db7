import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `loopl run` end to end on the real default model.
@Suite(.serialized) struct RunTests {
    static func events(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    @Test(.timeLimit(.minutes(10)), arguments: ["llama", "server"])
    func calculatorRunOnEveryBackend(_ backend: String) async throws {
        let result = await CapturedConsole.run(["run", "--backend", backend, "--tools", "calc", "--tool-choice", "required",
                                                "--temperature", "0", "--max-iterations", "3", "--max-tokens", "64",
                                                "--json", "What is 17*23?"])
        #expect(result.status == .success, "stderr: \(result.err)")
        let events = try Self.events(result.out)
        let results = events.filter { $0["event"] == "toolFinished" }.compactMap { $0["result"] }
        let first = try #require(results.first, "no tool ran: \(result.out.prefix(500))")
        #expect(first["name"] == "calculator")
        #expect(first["isError"] == false)
        #expect(first["content"] == "391")
        #expect(events.last?["event"] == "finished")
        #expect(events.filter { $0["event"] == "finished" }.count == 1)
        // What a new user sees of the demo (scripts/agent): the result in the answer, no markup.
        let answer = events.last { $0["event"] == "assistantMessage" }?["message"]?["content"]?.stringValue ?? ""
        #expect(answer.contains("391") && !answer.contains("<"), "the answer: \(answer)")
    }

    @Test(.timeLimit(.minutes(10)))
    func sessionIsSavedAndResumed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-session-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = await CapturedConsole.run(["run", "--temperature", "0", "--max-tokens", "8", "--session", path, "Hello"])
        #expect(first.status == .success, "stderr: \(first.err)")
        let saved = try SessionFile.load(path)
        #expect(saved.count == 2)
        #expect(saved.first == .user("Hello"))
        let second = await CapturedConsole.run(["run", "--temperature", "0", "--max-tokens", "8", "--session", path, "Again"])
        #expect(second.status == .success)
        #expect(try SessionFile.load(path).count == 4)
    }

    @Test func unknownBackendListsWhatExists() async {
        let result = await CapturedConsole.run(["run", "--backend", "nope", "hi"])
        #expect(result.status == .failure)
        #expect(result.err.contains("No backend named 'nope'. Configured: isolated, llama, server, stdio."))
    }

    @Test func badToolNameIsAUsageError() async {
        let result = await CapturedConsole.run(["run", "--tools", "calc,shell", "hi"])
        #expect(result.status == .usage)
        #expect(result.err.contains("Unknown tool 'shell'"))
    }
}

/// Structured output on the real default model.
@Suite(.serialized) struct StructuredOutputTests {
    @Test(.timeLimit(.minutes(10)))
    func jsonSchemaAnswerValidates() async throws {
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-schema-\(UUID()).json").path
        try #"{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"], "additionalProperties": false}"#
            .write(toFile: schema, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: schema) }
        let result = await CapturedConsole.run(["run", "--temperature", "0", "--max-tokens", "48", "--json-schema", schema,
                                                "Invent a person and give their name and age."])
        #expect(result.status == .success, "\(result.err)")
        let object = try JSONValue(parsing: result.out.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(object["name"]?.stringValue != nil, "\(result.out)")
        #expect(object["age"]?.intValue != nil, "\(result.out)")
        #expect(object.objectValue?.count == 2)
    }
}
