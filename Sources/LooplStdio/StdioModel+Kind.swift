import Foundation
import Loopl

extension StdioModel {
    /// The `stdio` kind of a configuration file: `{"kind": "stdio", "command": [...],
    /// "initializeTimeoutSeconds": 30, "idleTimeoutSeconds": 60, "parallel": 4, "maxQueue": 64,
    /// "env": {"NAME": "value"}, "inheritEnv": ["NAME"], "grammarSpacing": "separated" | "compact" | "spacious"}`; `command` is
    /// required, and `grammarSpacing` reaches Loopl's worker as `LOOPL_GRAMMAR_SPACING`. A worker other
    /// than `loopl worker` gets ``ChildEnvironment/basic``, the host variables `inheritEnv`
    /// names, and `env`; `loopl worker` inherits the host's whole environment.
    /// The built-in `stdio` backend runs `builtInCommand` (nil: no built-in backend), and so do
    /// the built-in backends named `alsoBuiltInAs`. Overrides become `loopl worker` options on a
    /// command that starts like `builtInCommand`; other workers are left as configured.
    public static func kind(builtInCommand: [String]? = nil, alsoBuiltInAs: [String] = []) -> BackendKind {
        BackendKind(name: "stdio", builtIn: builtInCommand.map { ["command": .array($0.map(JSONValue.string))] },
                    alsoBuiltInAs: alsoBuiltInAs, read: { section in
            try configuration(from: &section, builtInCommand: builtInCommand)
        }, problem: { configuration in
            guard let command = configuration.command.first else { return "no command" }
            if command.contains("/") { return FileManager.default.isExecutableFile(atPath: command) ? nil : "\(command) is not an executable" }
            return (try? ChildProcess.executable(command)) == nil ? "\(command) is not on PATH" : nil
        }, capacity: { configuration in
            BackendCapacity(parallel: configuration.parallel, maxQueue: configuration.maxQueue)
        }, override: { section, overrides in
            guard let builtInCommand, let command = section["command"]?.arrayValue?.compactMap(\.stringValue),
                  isLooplWorker(command, builtIn: builtInCommand) else { return }
            section["command"] = .array((command + overrides.workerArguments).map(JSONValue.string))
        }, start: { configuration in
            try await StdioModel.start(configuration)
        })
    }

    /// Whether `command` runs Loopl's own worker: the built-in command's program, then `worker`.
    static func isLooplWorker(_ command: [String], builtIn: [String]) -> Bool {
        command.starts(with: builtIn.prefix(1) + ["worker"])
    }

    /// The configuration a `stdio` section describes; a command that runs `builtInCommand`'s
    /// `worker` inherits the host's whole environment.
    package static func configuration(from section: inout ConfigSection, builtInCommand: [String]?) throws -> Configuration {
        let command = try section.optionalCommand("command") ?? []
        guard !command.isEmpty else { throw section.error("'command' must be a non-empty list") }
        var configuration = Configuration(command: command)
        configuration.inheritEnv = try section.optionalStrings("inheritEnv") ?? []
        if let env = try section.optionalObject("env") {
            var environment: [String: String] = [:]
            for (key, value) in env {
                guard let text = value.stringValue else { throw section.error("'env.\(key)' must be a string") }
                environment[key] = text
            }
            configuration.environment = environment
        }
        if let spacing = try section.optionalChoice("grammarSpacing", as: GrammarSpacing.self) {
            // Loopl's worker builds its grammars with the `llama` kind, which reads this variable.
            configuration.environment = (configuration.environment ?? [:]).merging([GrammarSpacing.environmentVariable: spacing.rawValue]) { _, new in new }
        }
        configuration.inheritsHostEnvironment = builtInCommand.map { isLooplWorker(command, builtIn: $0) } ?? false
        if let seconds = try section.optionalDouble("initializeTimeoutSeconds") { configuration.initializeTimeout = .seconds(seconds) }
        if let seconds = try section.optionalDouble("idleTimeoutSeconds") { configuration.idleTimeout = .seconds(seconds) }
        let capacity = try BackendCapacity.read(from: &section)
        (configuration.parallel, configuration.maxQueue) = (capacity.parallel, capacity.maxQueue)
        return configuration
    }
}
