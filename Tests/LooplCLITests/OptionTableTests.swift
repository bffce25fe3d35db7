import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// The option tables: every option a help lists parses, a bad value is refused, and the sampling
/// options reach the backend (the Python worker records each generate request it reads).
@Suite struct OptionTableTests {
    static let commands = ["run", "chat", "serve", "bench", "worker", "ps"]

    /// The long names of the options that `help` lists, in order.
    static func listed(_ help: String) -> [String] {
        help.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  -"), let long = line.split(separator: " ").first(where: { $0.hasPrefix("--") }) else { return nil }
            return String(long.dropFirst(2))
        }
    }

    /// A value that `option` takes: its range's top, its last word, or some text.
    static func sample(_ option: CLIOption) -> String? {
        switch option.value {
        case .flag: nil
        case .integer(let range): String(range.upperBound)
        case .number(let range): CalculatorTool.format(range.upperBound)
        case .choice(let words): words.last
        case .text: ["tools": "calc", "system-file": #filePath, "concurrency": "1,2"][option.name] ?? "x"
        }
    }

    /// A value past `option`'s range or outside its words; nil when it takes any text.
    static func outside(_ option: CLIOption) -> String? {
        switch option.value {
        case .integer(let range): String(range.upperBound + 1)
        case .number(let range): CalculatorTool.format(range.upperBound + 1)
        case .choice: "nonsense"
        case .flag, .text: nil
        }
    }

    /// Parses `words` as the command `name`'s arguments, as ``CLI`` does.
    static func parse(_ name: String, _ words: [String]) throws(UsageError) {
        guard let type = CLI.commands.first(where: { $0.name == name }) else { throw UsageError("no command \(name)") }
        var arguments = Arguments(words)
        _ = try type.init(arguments: &arguments)
        try arguments.finish()
    }

    /// What an option needs beside it to parse alone.
    static func line(_ name: String, _ option: CLIOption, spelled: String, value: String?) -> [String] {
        let bfcl = name == "bench" ? ["bfcl": ["--url", "http://127.0.0.1:1"], "url": ["--bfcl", "x"],
                                      "tool-choice": ["--bfcl", "x", "--url", "http://127.0.0.1:1"]] : [:]
        let companions = ["resume": ["--session", "x"], "think-template": ["--agent"],
                          "arrival-tokens": ["--workload", "long-arrival"]].merging(bfcl) { $1 }[option.name] ?? []
        let prompt = name == "run" && option.name != "resume" ? ["hi"] : []
        return [spelled] + (value.map { [$0] } ?? []) + companions + prompt
    }

    @Test(arguments: commands)
    func everyOptionTheHelpListsParses(_ name: String) throws {
        let type = try #require(CLI.commands.first { $0.name == name })
        #expect(Self.listed(type.help) == type.options.map(\.name), "\(name)'s help lists other options than its table")
        for option in type.options where option.name != "help" {
            for spelled in ["--" + option.name] + (option.short.map { ["-" + $0] } ?? []) {
                let words = Self.line(name, option, spelled: spelled, value: Self.sample(option))
                do { try Self.parse(name, words) } catch { Issue.record("loopl \(name) \(words.joined(separator: " ")): \(error.message)") }
            }
            guard let bad = Self.outside(option) else { continue }
            let words = Self.line(name, option, spelled: "--" + option.name, value: bad)
            #expect(throws: UsageError.self, "loopl \(name) \(words.joined(separator: " ")) parsed") { try Self.parse(name, words) }
        }
    }

    /// A config whose default backend is the Python worker, recording what it reads and writes in `log`.
    static func config(log: String) throws -> String {
        let root = CommandLineConventionTests.root
        let command: [JSONValue] = ["python3", .string(root.appendingPathComponent("backends/python/worker.py").path), "--delay-ms", "0",
                                    "--script", .string(root.appendingPathComponent("backends/python/script.json").path),
                                    "--record", .string(log)]
        let config: JSONValue = ["default": "python", "backends": ["python": ["kind": "stdio", "command": .array(command)]]]
        return try ToolingCommandTests.temporary(config.jsonText(), ".json")
    }

    /// The options of each generate request the worker read.
    static func sent(_ log: String) throws -> [JSONValue] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("< ") }
            .map { try JSONValue(parsing: String($0.dropFirst(2))) }
            .filter { $0["method"] == "generate" }.compactMap { $0["params"]?["options"] }
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("loopl-options-\(UUID()).jsonl").path
    }

    @Test(.timeLimit(.minutes(2)))
    func samplingOptionsAndTheirDefaultsReachTheWorker() throws {
        let log = Self.temporaryPath()
        let config = try Self.config(log: log)
        defer { for path in [log, config] { try? FileManager.default.removeItem(atPath: path) } }
        let given = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "calc", "--json", "--top-k", "7", "--top-p", "0.5",
                                                   "--min-p", "0.25", "--repeat-penalty", "1.5", "--temperature", "0.25", "--seed", "9",
                                                   "--max-tokens", "77", "--think", "low", "--think-budget", "3",
                                                   "--tool-choice", "required", "What is 17*23?"])
        #expect(given.status == 0, "\(given.err)")
        let first = try #require(try Self.sent(log).first)
        #expect(first["topK"] == 7 && first["topP"]?.doubleValue == 0.5 && first["minP"]?.doubleValue == 0.25, "\(first)")
        #expect(first["repeatPenalty"]?.doubleValue == 1.5 && first["temperature"]?.doubleValue == 0.25 && first["seed"] == 9, "\(first)")
        #expect(first["maxTokens"] == 77 && first["reasoning"] == "low" && first["reasoningBudget"] == 3, "\(first)")
        #expect(first["toolChoice"] == "required", "\(first)")
        // Without the options, the worker gets the defaults that the help shows.
        try FileManager.default.removeItem(atPath: log)
        let plain = try ToolingCommandTests.loopl(["run", "--config", config, "--tools", "calc", "--json", "What is 17*23?"])
        #expect(plain.status == 0, "\(plain.err)")
        let defaults = try #require(try Self.sent(log).first)
        for option in SharedOptions.generation where option.sets != nil {
            let key = ["max-tokens": "maxTokens", "temperature": "temperature", "top-k": "topK", "top-p": "topP", "min-p": "minP",
                       "repeat-penalty": "repeatPenalty", "think": "reasoning", "seed": "seed", "think-budget": "reasoningBudget"][option.name]
            let value = try #require(key.map { defaults[$0] }, "no key for --\(option.name)")
            let shown = value.flatMap { $0.stringValue ?? $0.doubleValue.map(CalculatorTool.format) }
            #expect(shown == option.defaultValue, "--\(option.name): the help's default \(option.defaultValue ?? "none"), sent \(defaults)")
        }
    }

    /// The backend overrides reach the `loopl worker` that the isolated backend runs: the context
    /// it reports is `-c`'s, and `-m` names the file it fails to load.
    @Test(.timeLimit(.minutes(2)))
    func backendOverridesReachTheWorker() throws {
        let run = try ToolingCommandTests.loopl(["run", "--backend", "isolated", "-c", "768", "-t", "2", "-ngl", "0", "--max-tokens", "1",
                                                 "--temperature", "0", "--json", "hi"])
        #expect(run.status == 0, "\(run.err)")
        let metrics = try RunTests.events(run.out).filter { $0["event"] == "metrics" }.compactMap { $0["metrics"] }
        #expect(metrics.last?["contextMax"] == 768, "\(run.out)")
        let missing = try ToolingCommandTests.loopl(["run", "--backend", "isolated", "-m", "/nonexistent/override.gguf", "hi"])
        #expect(missing.status == 1 && missing.err.contains("/nonexistent/override.gguf"), "\(missing.err)")
    }

    /// An option added in one place, here in the test, shows in the help, parses, and reaches the worker.
    @Test(.timeLimit(.minutes(2)))
    func aThrowawayOptionShowsParsesAndReachesTheWorker() async throws {
        let probe = CLIOption("stop-word", "WORD", help: "Stop before WORD (a throwaway).") { $0.stop = [$1] }
        let table = SharedOptions.generation + [probe]
        let line = CLIOption.help(table).split(separator: "\n").first { $0.hasPrefix("  --stop-word WORD ") }
        #expect(line?.hasSuffix(" Stop before WORD (a throwaway).") == true, "\(CLIOption.help(table))")
        var arguments = Arguments(["--stop-word", "zebra"])
        let generation = try AgentSettings.generation(&arguments, from: table)
        try arguments.finish()
        let log = Self.temporaryPath()
        let config = try Self.config(log: log)
        defer { for path in [log, config] { try? FileManager.default.removeItem(atPath: path) } }
        let model = try await Router(config: LooplConfig.load(explicit: config, kinds: BackendFactory.kinds)).model(named: nil) { _ in }
        for try await _ in model.generate(messages: [.user("hi")], tools: [], options: generation) {}
        await model.close()
        let sent = try Self.sent(log)
        #expect(sent.first?["stop"] == ["zebra"], "\(sent)")
    }

    @Test(.timeLimit(.minutes(2)))
    func chatCommandsReachTheWorker() throws {
        let log = Self.temporaryPath()
        let config = try Self.config(log: log)
        let home = try ChatTests.home()
        defer { for path in [log, config, home] { try? FileManager.default.removeItem(atPath: path) } }
        let out = try ChatTests.chat([
            ("", "› ", 30),
            ("/help\n", "/quit", 10),
            ("/tool-choice nope\n", "not an enabled tool", 10),
            ("/think high\n", "thinking high", 10),
            ("/tool-choice calculator\n", "tool choice calculator", 10),
            ("What is 17*23?\n", "391.", 30),
            ("/quit\n", "", 10),
        ], ["--config", config, "--tools", "calc"], home: home)
        #expect(out.contains(SlashCommand.list.replacingOccurrences(of: "\n", with: "\r\n")), "\(out)")
        #expect(!out.contains("Unknown command"), "\(out)")
        #expect(out.contains("'nope', which is not an enabled tool (offered: calculator)"), "\(out)")
        let sent = try Self.sent(log)
        #expect(sent.first?["reasoning"] == "high" && sent.first?["toolChoice"] == "calculator", "\(sent)")
        #expect(sent.dropFirst().first?["toolChoice"] == "auto", "later iterations choose freely: \(sent)")
    }
}
