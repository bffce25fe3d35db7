#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import Testing

/// The built-in `isolated` backend: the in-process engine behind `loopl worker`, whose crash
/// costs the run one retried turn.
@Suite(.serialized) struct IsolatedTests {
    @Test(.timeLimit(.minutes(5)))
    func aCrashedEngineCostsOneRetriedTurn() async throws {
        let host = try ChildProcess(executable: Fixtures.loopl, arguments: [
            "run", "--backend", "isolated", "--temperature", "0", "--max-tokens", "24", "--json", "Tell me about lighthouses.",
        ], output: .stream)
        var text = ""
        var killed: Int32?
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            if killed == nil, text.contains(#"{"event":"text""#), let worker = ProcessWatch.children(of: host.pid).first {
                kill(worker, SIGKILL)
                killed = worker
            }
        }
        let status = await host.waitForExit()
        #expect(status == 0, "\(host.lastLines)")
        #expect(killed != nil, "the run ended before its worker could be killed: \(text)")
        let events = try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let retries = events.filter { $0["event"] == "retrying" }
        #expect(retries.count == 1, "\(text)")
        #expect(retries.first?["reason"]?.stringValue?.contains("worker --backend llama") == true, "\(retries)")
        #expect(events.last?["event"] == "finished" && events.last?["reason"] != nil, "\(text.suffix(300))")
    }

    /// `loopl` started as `loopl` in a folder that holds an executable `./loopl`: its `isolated`
    /// worker is the binary that runs, never the planted one, whether `loopl` was found through
    /// PATH or PATH has none (so that the name it was started by leads nowhere).
    @Test(.timeLimit(.minutes(5)), arguments: [#"PATH="$0/bin:$PATH" exec loopl"#, #"PATH=/usr/bin:/bin exec -a loopl "$0/bin/loopl""#])
    func theWorkerIsTheRunningBinaryNotOneInTheCurrentFolder(start: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-planted-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/bin/loopl", withDestinationPath: Fixtures.loopl)
        let marker = folder + "/planted-ran"
        try "#!/bin/sh\ntouch '\(marker)'\nexit 3\n".write(toFile: folder + "/loopl", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/loopl")
        let host = try ChildProcess(executable: "/bin/bash", arguments: [
            "-c", #"cd "$0" && "# + start + " run --backend isolated --max-tokens 2 --json Hi", folder,
        ], output: .stream)
        var text = ""
        for await chunk in host.output { text += String(decoding: chunk, as: UTF8.self) }
        let status = await host.waitForExit()
        #expect(!FileManager.default.fileExists(atPath: marker), "the planted ./loopl ran as the worker")
        #expect(status == 0, "\(host.lastLines)")
        #expect(text.contains(#"{"event":"finished""#), "\(text)")
    }

    /// About 300 tokens of system prompt: more than the prompt cache's shortest saved prompt.
    static let system = (1...12).map { "Rule \($0): answer in plain words and keep to the point of item \($0). " }.joined()

    /// A config whose `llama` backend (the one `isolated` runs in its worker, which reads the same
    /// file through LOOPL_CONFIG) saves prompts in a folder of the test's own, whatever
    /// LOOPL_PROMPT_CACHE says; `isolated` is named as it is built in.
    static func cachingConfig(folder: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-isolated-config-\(UUID()).json").path
        let config: JSONValue = ["backends": [
            "llama": ["kind": "llama", "model": .string(Fixtures.modelPath), "contextLength": 1024, "threads": 2,
                      "promptCache": true, "promptCacheDirectory": .string(folder)],
            "isolated": ["kind": "stdio", "command": [.string(Fixtures.loopl), "worker", "--backend", "llama"]],
        ]]
        try config.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The worker is killed once its prompt is saved; the retried turn, in a new worker, loads it
    /// and evaluates at most 10 % of its prompt.
    @Test(.timeLimit(.minutes(5)))
    func aTurnRetriedAfterACrashLoadsItsPromptFromTheCache() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-isolated-cache-\(UUID())").path
        let config = try Self.cachingConfig(folder: folder)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: config)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LOOPL_CONFIG"] = config
        let host = try ChildProcess(executable: Fixtures.loopl, arguments: [
            "run", "--backend", "isolated", "--temperature", "0", "--max-tokens", "64", "--json", "--system", Self.system,
            "Tell me about lighthouses.",
        ], environment: environment, output: .stream)
        var text = ""
        var killed: Int32?
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            let saved = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.hasSuffix(".bin") && !$0.hasPrefix(".") }
            if killed == nil, saved, text.contains(#"{"event":"text""#), let worker = ProcessWatch.children(of: host.pid).first {
                kill(worker, SIGKILL)
                killed = worker
            }
        }
        let status = await host.waitForExit()
        #expect(status == 0, "\(host.lastLines)")
        #expect(killed != nil, "the run ended before its worker saved its prompt and could be killed: \(text.suffix(500))")
        let events = try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let retry = try #require(events.firstIndex { $0["event"] == "retrying" }, "\(text.suffix(500))")
        let metrics = try #require(events[retry...].first { $0["event"] == "metrics" }?["metrics"], "no metrics after the retry")
        let prompt = try #require(metrics["promptTokens"]?.intValue), cached = try #require(metrics["cachedPromptTokens"]?.intValue)
        #expect(prompt > 200, "\(metrics)")
        #expect(prompt - cached <= prompt / 10, "the retried turn evaluated \(prompt - cached) of its \(prompt) prompt tokens")
    }
}
#endif
