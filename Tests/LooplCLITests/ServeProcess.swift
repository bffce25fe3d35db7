import Foundation
import Loopl
import LooplTestKit
import Testing

/// A real `loopl serve` child on a free port, and the Python client checks run against it.
final class ServeProcess {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl").path
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path
    static let clients = root + "/Tests/Data/Clients"

    let process = Process()
    let port: Int
    /// What the server wrote on standard error up to and including its `listening on` line.
    let banner: String
    private let errors: FileHandle

    /// Starts `loopl serve --port 0 ARGUMENTS` in `folder` (the repository root) and waits for its line.
    init(_ arguments: [String], config: String? = nil, environment extra: [String: String] = [:], in folder: String = root) throws {
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--port", "0"] + (config.map { ["--config", $0] } ?? []) + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = environmentWithFreshPromptCache()
        environment.removeValue(forKey: "LOOPL_API_KEY")
        environment.merge(extra) { $1 }
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        errors = pipe.fileHandleForReading
        var text = ""
        while !text.contains("listening on http://") || !text.hasSuffix("\n") {
            let data = errors.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        banner = text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
              let port = line.split(separator: ":").last.flatMap({ Int($0) }) else {
            process.terminate()
            throw LooplError(.processFailed, "loopl serve did not print its listening line: \(text)")
        }
        self.port = port
    }

    var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    /// Runs `Tests/Data/Clients/SCRIPT ARGUMENTS` with the SDKs' Python; returns its exit status and output.
    func client(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let python = ProcessInfo.processInfo.environment["LOOPL_SDK_PYTHON"] ?? (LooplHome.directory + "/sdk-clients/bin/python")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: python)
        child.arguments = [Self.clients + "/" + script] + arguments
        let pipe = Pipe()
        child.standardOutput = pipe
        child.standardError = pipe
        try child.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return (child.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `Tests/Data/Clients/SCRIPT ARGUMENTS CHECKS...` and records a failure for each check
    /// that did not print its `ok NAME:` line.
    func expect(_ script: String, _ arguments: [String], checks: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try client(script, arguments + checks)
        #expect(result.status == 0, "\(script) \(checks.joined(separator: " ")):\n\(result.output)", sourceLocation: sourceLocation)
        for name in checks {
            #expect(result.output.contains("ok \(name):"), "no 'ok \(name):' in:\n\(result.output)", sourceLocation: sourceLocation)
        }
    }

    /// Runs the OpenAI SDK checks `names` against `model`.
    func expectChecks(_ names: [String], model: String, key: String = "none", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expect("openai_check.py", ["--base-url", baseURL, "--api-key", key, "--model", model], checks: names, sourceLocation: sourceLocation)
    }

    /// Sends SIGTERM and waits; returns the exit status and the rest of standard error.
    func stop() -> (status: Int32, errors: String) {
        if process.isRunning { process.terminate() }
        let rest = errors.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Writes `config` to a temporary file and returns its path.
    static func config(_ config: JSONValue) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-serve-\(UUID()).json").path
        try config.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A config with the default model in process (`llama`, parallel `parallel`) under the aliases
    /// given, and the `extra` backends.
    static func llamaConfig(parallel: Int = 4, maxQueue: Int = 64, aliases: [String] = ["gpt-4o-mini"], serve: JSONObject = [:],
                            extra: JSONObject = [:], tools: JSONObject = [:]) throws -> String {
        var backends: JSONObject = [
            "llama": ["kind": "llama", "model": .string(LooplHome.defaultModel), "threads": 2, "contextLength": 8192,
                      "parallel": .integer(parallel), "maxQueue": .integer(maxQueue), "aliases": .array(aliases.map { .string($0) })],
        ]
        for (name, entry) in extra { backends[name] = entry }
        return try config(["default": "llama", "serve": .object(serve), "backends": .object(backends), "tools": .object(tools)])
    }

    /// The llama backend with the calculator asking before each call, and sessions kept in a
    /// folder of their own.
    static func askingConfig() throws -> String {
        let sessions = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-sessions-\(UUID())").path
        return try llamaConfig(serve: ["sessionsDir": .string(sessions)], tools: ["calc": ["approval": "ask"]])
    }
}
