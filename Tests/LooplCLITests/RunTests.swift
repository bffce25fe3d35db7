import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// `loopl run` end to end on the real default model.
@Suite(.serialized) struct RunTests {
    static func events(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    /// A folder with the files tools' root in it: `root/inside.txt`, `outside.txt` beside the
    /// root, `root/escape` linking to it, and `root/chain0`, 41 links to inside.txt. Returns the
    /// folder, the root and the scripted turn that reads `../outside.txt`, `escape`, `chain0` and
    /// `inside.txt`, in that order.
    static func filesTree() throws -> (folder: String, root: String, turns: [JSONValue]) {
        let folder = try ScriptedWorker.folder("files-root")
        let root = folder + "/root"
        let files = FileManager.default
        try files.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "inside words".write(toFile: root + "/inside.txt", atomically: true, encoding: .utf8)
        try "outside words".write(toFile: folder + "/outside.txt", atomically: true, encoding: .utf8)
        try files.createSymbolicLink(atPath: root + "/escape", withDestinationPath: folder + "/outside.txt")
        for link in 0...40 { try files.createSymbolicLink(atPath: root + "/chain\(link)", withDestinationPath: link == 40 ? "inside.txt" : "chain\(link + 1)") }
        let reads = ["../outside.txt", "escape", "chain0", "inside.txt"].map { path -> JSONValue in
            ["name": "read_file", "arguments": ["path": .string(path)]]
        }
        return (folder, root, [["toolCalls": .array(reads)], ["chunks": ["Read."]]])
    }

    /// `loopl run --tools files --root DIR` gives the tools DIR as their root: a path out of it,
    /// a link out of it and a chain of 41 links are refused, a file inside is read.
    @Test(.timeLimit(.minutes(2)))
    func theFilesToolsReadUnderTheRootGiven() throws {
        let tree = try Self.filesTree()
        defer { try? FileManager.default.removeItem(atPath: tree.folder) }
        let config = try ScriptedWorker.config(in: tree.folder, turns: tree.turns)
        let run = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "files", "--root", tree.root, "--json", "Read them."],
                                                within: .seconds(60))
        #expect(run.status == 0, "\(run.err)")
        let results = try Self.events(run.out).filter { $0["event"] == "toolFinished" }.compactMap { $0["result"] }
        try #require(results.count == 4, "\(run.out)")
        #expect(results[0]["isError"] == true && results[0]["content"]?.stringValue?.contains("outside the tools' root") == true, "\(results[0])")
        #expect(results[1]["isError"] == true && results[1]["content"]?.stringValue?.contains("outside the tools' root") == true, "\(results[1])")
        #expect(results[2]["isError"] == true && results[2]["content"]?.stringValue?.contains("symbolic links") == true, "\(results[2])")
        #expect(results[3]["isError"] == false && results[3]["content"] == "inside words", "\(results[3])")
        #expect(!run.out.contains("outside words"))
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
