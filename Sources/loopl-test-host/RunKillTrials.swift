import Foundation
import Loopl
import Synchronization

/// Kills `loopl run --session FILE` with SIGKILL at a random moment of a multi-iteration tool run
/// (the Python reference worker, scripted: a calculator call, a call of the test MCP server's
/// `slow` tool, another calculator call, then an answer), then checks the session file it left
/// and finishes the run with `--resume`. The moments come from `seed`; the first trial kills
/// while the slow call runs, so at least one leaves a call pending.
///
/// A trial passes when the file loads, holds every message whose event the host had printed
/// (`--json`), and `--resume` ends with an answer, keeping the saved messages and answering
/// every call.
struct RunKillTrials {
    let trials: Int
    let seed: UInt64

    /// The MCP tool that takes a while, so that a kill can land while it runs.
    static let slowTool = "wait_slow"

    static let prompt = "Add 1+2, 3+4 and 5+6."
    /// The built-in set the run enables (`--tools calc`): the calculator the script calls.
    static let tools = BuiltInToolSet.calc
    static let script: JSONValue = [
        "name": "killtest", "version": "1", "contextMax": 8192, "nativeToolCalls": true,
        "turns": [
            ["chunks": ["Adding", " the", " first", " pair."], "toolCalls": [["name": .string(CalculatorTool.name), "arguments": ["expression": "1+2"]]]],
            ["chunks": ["Now", " a", " pause."], "toolCalls": [["name": .string(slowTool), "arguments": ["seconds": 0.4]]]],
            ["chunks": ["And", " the", " third."], "toolCalls": [["name": .string(CalculatorTool.name), "arguments": ["expression": "5+6"]]]],
            ["chunks": ["The", " sums", " are", " 3,", " 7", " and", " 11."]],
        ],
    ]

    /// The folder that holds `backends/python/worker.py`: above this binary, else the current one.
    static var packageRoot: String {
        get throws {
            var url = URL(fileURLWithPath: try KillTrials.hostPath).deletingLastPathComponent()
            while url.path != "/" {
                if FileManager.default.fileExists(atPath: url.appendingPathComponent("backends/python/worker.py").path) { return url.path }
                url = url.deletingLastPathComponent()
            }
            return FileManager.default.currentDirectoryPath
        }
    }

    static var loopl: String {
        get throws { URL(fileURLWithPath: try KillTrials.hostPath).deletingLastPathComponent().appendingPathComponent("loopl").path }
    }

    /// When a trial kills the run: a time after its first line (the run takes about 1.1 s from
    /// there), as soon as it has printed a number of lines (about 37 in all), which lands more
    /// kills next to a save, or a time after the slow call started (it runs 0.4 s).
    enum KillMoment {
        case after(Duration)
        case atLine(Int)
        case inSlowCall(Duration)

        /// The first trial's moment is in the slow call; the others alternate between a time and a line.
        static func random(trial: Int, using random: inout SeededRandom) -> KillMoment {
            if trial == 1 { return .inSlowCall(.milliseconds(Int.random(in: 0..<200, using: &random))) }
            return trial % 2 == 1 ? .after(.milliseconds(Int.random(in: 0..<1100, using: &random)))
                : .atLine(Int.random(in: 1...37, using: &random))
        }

        /// Whether the run has printed enough of `text` for the kill's wait to start.
        func reached(_ text: String) -> Bool {
            switch self {
            case .after: text.contains("\n")
            case .atLine(let n): text.count { $0 == "\n" } >= n
            case .inSlowCall: text.split(separator: "\n").contains { $0.contains("toolStarted") && $0.contains(RunKillTrials.slowTool) }
            }
        }
    }

    /// Runs `loopl` with `arguments`; kills it at `moment` (nil: lets it end). Returns its
    /// complete output lines and whether it was killed before it ended.
    static func runLoopl(_ arguments: [String], kill moment: KillMoment?) async throws -> (lines: [String], killed: Bool, status: Int32) {
        let host = try ChildProcess(executable: loopl, arguments: arguments, output: .stream)
        let text = Mutex("")
        let reader = Task { for await chunk in host.output { text.withLock { $0 += String(decoding: chunk, as: UTF8.self) } } }
        var killed = false
        if let moment {
            let deadline = ContinuousClock.now + .seconds(30)
            while !text.withLock({ moment.reached($0) }), host.exitStatus == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .microseconds(200))
            }
            switch moment {
            case .after(let delay), .inSlowCall(let delay): try await Task.sleep(for: delay)
            case .atLine: break
            }
            if host.exitStatus == nil {
                host.signal(SIGKILL)
                killed = true
            }
        }
        guard let status = await host.waitForExit(timeout: .seconds(60)) else {
            await host.terminate(grace: .seconds(1))
            throw LooplError(.timedOut, "loopl \(arguments.joined(separator: " ")) did not end within 60 s; its log: \(host.lastLines)")
        }
        await reader.value
        let complete = text.withLock { text in text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex)]) }
        return (complete.split(separator: "\n").map(String.init), killed, status)
    }

    /// The messages that the printed events report as complete, in order.
    static func printedMessages(_ lines: [String]) throws -> [Message] {
        try lines.compactMap { line -> Message? in
            switch try JSONValue(parsing: line).decode(AgentEvent.self) {
            case .assistantMessage(let message): message
            case .toolFinished(let result): .tool(result: result.content, callId: result.callId, name: result.name)
            default: nil
            }
        }
    }

    /// Writes a trial's script and config into `folder`; the arguments of its runs and its session file.
    static func prepare(_ folder: URL) throws -> (arguments: [String], session: String) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("script.json").path
        let config = folder.appendingPathComponent("config.json").path
        let session = folder.appendingPathComponent("session.json").path
        try Self.script.jsonText().write(toFile: script, atomically: true, encoding: .utf8)
        let worker = try Self.packageRoot + "/backends/python/worker.py"
        let server = try Self.packageRoot + "/Tests/Data/MCP/test_mcp_server.py"
        let configValue: JSONValue = [
            "default": "py",
            "backends": ["py": ["kind": "stdio", "command": ["python3", .string(worker), "--script", .string(script), "--delay-ms", "40"]]],
            "mcpServers": ["wait": ["command": "python3", "args": [.string(server), "legacy"]]],
        ]
        try configValue.jsonText().write(toFile: config, atomically: true, encoding: .utf8)
        return (["--config", config, "--session", session, "--tools", Self.tools.name, "--mcp", "all", "--json", "--max-iterations", "12"], session)
    }

    func run() async throws -> JSONValue {
        var states: [String: Int] = ["user": 0, "pendingCalls": 0, "toolResult": 0, "answered": 0]
        var broken: [String] = []
        var missing: [String] = []
        var resumeFailures: [String] = []
        var finishedBeforeKill = 0
        var savedCounts: [Int] = []
        var resumeMs: [Double] = []
        var killedWithCallPending = 0
        var random = SeededRandom(seed: seed)
        FileHandle.standardError.write(Data("kill moments of seed \(seed)\n".utf8))
        for trial in 1...trials {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-run-kill-\(getpid())-\(trial)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let (common, session) = try Self.prepare(folder)

            let (lines, killed, _) = try await Self.runLoopl(["run"] + common + [Self.prompt], kill: .random(trial: trial, using: &random))
            if !killed { finishedBeforeKill += 1 }
            let saved: [Message]
            do { saved = try SessionFile.load(session) } catch {
                broken.append("trial \(trial): \(error)")
                continue
            }
            let printed = try Self.printedMessages(lines)
            if saved.first != .user(Self.prompt) || !Array(saved.dropFirst()).starts(with: printed) {
                missing.append("trial \(trial): printed \(printed.count) messages, saved \(saved.count)")
            }
            savedCounts.append(saved.count)
            let last = saved.last
            let state = last?.role == "assistant" ? (last?.toolCalls.isEmpty == true ? "answered" : "pendingCalls") : (last?.role ?? "user")
            states[state == "tool" ? "toolResult" : state, default: 0] += 1
            if killed, state == "pendingCalls" { killedWithCallPending += 1 }

            let start = ContinuousClock.now
            let resumed = try await Self.runLoopl(["run"] + common + ["--resume"], kill: nil)
            resumeMs.append(((ContinuousClock.now - start) / .milliseconds(1)).rounded())
            let after = (try? SessionFile.load(session)) ?? []
            let calls = Set(after.flatMap(\.toolCalls).map(\.id))
            let results = Set(after.compactMap { message -> String? in if case .tool(_, let id, _) = message { id } else { nil } })
            let finished = resumed.lines.last.flatMap { try? JSONValue(parsing: $0)["reason"] } == "answered"
            if resumed.status != 0 || !finished || !after.starts(with: saved) || after.last?.role != "assistant"
                || after.last?.toolCalls.isEmpty != true || calls != results {
                resumeFailures.append("trial \(trial): status \(resumed.status), \(saved.count) → \(after.count) messages, last line \(resumed.lines.last ?? "none")")
            }
        }
        let mean = { (values: [Double]) in values.isEmpty ? 0 : (values.reduce(0, +) / Double(values.count)).rounded() }
        return [
            "target": "run", "trials": .integer(trials), "seed": .string(String(seed)), "finishedBeforeKill": .integer(finishedBeforeKill),
            "killedWithCallPending": .integer(killedWithCallPending),
            "broken": .integer(broken.count), "brokenDetails": .array(broken.map(JSONValue.string)),
            "missingTurns": .integer(missing.count), "missingDetails": .array(missing.map(JSONValue.string)),
            "statesAtKill": .object(JSONObject(states.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer($0.value)) })),
            "savedMessages": .array(savedCounts.map { .integer($0) }),
            "resumeFailures": .integer(resumeFailures.count), "resumeDetails": .array(resumeFailures.map(JSONValue.string)),
            "meanResumeMs": .double(mean(resumeMs)), "maxResumeMs": .double(resumeMs.max() ?? 0),
        ]
    }
}
