import Foundation
import Loopl
import LooplTestKit
import Testing

/// `loopl serve`'s agent endpoint (/loopl/v1/runs and /loopl/v1/sessions) against the real binary
/// on the default model, through runs_check.py over raw HTTP.
@Suite(.serialized) struct RunsServeTests {
    /// A fresh sessions folder, and the config that saves there.
    static func setUp() throws -> (config: String, sessions: String) {
        try ServeTests.requireModel()
        let sessions = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-sessions-\(UUID())").path
        return (try ServeProcess.llamaConfig(parallel: 2, serve: ["sessionsDir": .string(sessions)]), sessions)
    }

    static func check(_ server: ServeProcess, _ checks: [String], key: String? = nil, extra: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("runs_check.py", ["--port", String(server.port)] + (key.map { ["--key", $0] } ?? []) + extra,
                          checks: checks, sourceLocation: sourceLocation)
    }

    /// The events of `loopl run --json` with the endpoint check's settings, in a file.
    static func runJSON(config: String) throws -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: ServeProcess.binary)
        child.arguments = ["run", "--config", config, "--json", "--tools", "calc", "--tool-choice", "required",
                           "--temperature", "0", "--seed", "7", "What is 17*23?"]
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        child.environment = environmentWithFreshPromptCache()
        try child.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-run-\(UUID()).jsonl").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.timeLimit(.minutes(20)))
    func aRunStreamsTheEventsOfLooplRunJSONAndIsSaved() throws {
        let (config, sessions) = try Self.setUp()
        let expected = try Self.runJSON(config: config)
        let server = try ServeProcess(["--api-key", "secret"], config: config)
        try Self.check(server, ["same-events", "bad-session", "missing-key", "delete"], key: "secret",
                       extra: ["--expected", expected, "--sessions-dir", sessions])
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(10)))
    func aRunStartsTheMCPServersItNames() throws {
        try ServeTests.requireModel()
        let config = try ServeProcess.config([
            "default": "llama",
            "backends": ["llama": ["kind": "llama", "model": .string(LooplHome.defaultModel), "threads": 2, "contextLength": 8192]],
            "mcpServers": ["good": MCPCommandTests.test("legacy")],
        ])
        let server = try ServeProcess([], config: config)
        try Self.check(server, ["mcp"])
        #expect(server.stop().status == 0)
    }

    /// A run's files tools read under the folder `loopl serve` started in: a path out of it, a
    /// link out of it and a chain of 41 links are refused, a file inside is read.
    @Test(.timeLimit(.minutes(2)))
    func aRunsFilesToolsReadUnderTheServersFolder() throws {
        let tree = try RunTests.filesTree()
        defer { try? FileManager.default.removeItem(atPath: tree.folder) }
        let config = try ScriptedWorker.config(in: tree.folder, turns: tree.turns, extra: ["serve": ["sessionsDir": .string(tree.folder + "/sessions")]])
        let server = try ServeProcess([], config: config, in: tree.root)
        try Self.check(server, ["files-root"])
        #expect(server.stop().status == 0)
    }

    /// Two tools that ask: "run" for one lets its later calls run unasked, and the other is still asked about.
    @Test(.timeLimit(.minutes(2)))
    func approvingForTheRunIsForThatToolAlone() throws {
        let folder = try ScriptedWorker.folder("approve-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let both: JSONValue = ["toolCalls": [["name": "calculator", "arguments": ["expression": "2+2"]], ["name": "current_time", "arguments": [:]]]]
        let config = try ScriptedWorker.config(in: folder, turns: [both, both, ["chunks": ["Done."]]],
                                               extra: ["tools": ["calc": ["approval": "ask"], "time": ["approval": "ask"]],
                                                       "serve": ["sessionsDir": .string(folder + "/sessions")]])
        let server = try ServeProcess([], config: config)
        try Self.check(server, ["approve-run"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(20)))
    func cancelStopsARunAndABusySessionIsRefused() throws {
        let (config, _) = try Self.setUp()
        let server = try ServeProcess([], config: config)
        try Self.check(server, ["cancel-busy"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(20)))
    func aRunWaitsForItsApprovalAndThePostReleasesIt() throws {
        // The approval timeout is the default 300 s: a run ended by a cancel or a hang-up ends long before.
        try ServeTests.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.askingConfig())
        try Self.check(server, ["approve", "deny", "cancel-waiting"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(10)))
    func aCallThatWaitsTooLongIsDenied() throws {
        try ServeTests.requireModel()
        let config = try ServeProcess.llamaConfig(parallel: 1, serve: ["approvalTimeoutSeconds": 1])
        let server = try ServeProcess(["--approve", "ask"], config: config)
        try Self.check(server, ["approval-timeout"])
        #expect(server.stop().status == 0)
    }
}
