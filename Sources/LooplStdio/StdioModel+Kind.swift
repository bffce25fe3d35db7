import Foundation
import Loopl

extension StdioModel {
    /// The `stdio` kind of a configuration file: `{"kind": "stdio", "command": [...],
    /// "initializeTimeoutSeconds": 30, "idleTimeoutSeconds": 60, "parallel": 4, "maxQueue": 64}`;
    /// `command` is required.
    /// The built-in `stdio` backend runs `builtInCommand` (nil: no built-in backend), and so do
    /// the built-in backends named `alsoBuiltInAs`. Overrides become `loopl worker` options on a
    /// command that starts like `builtInCommand`; other workers are left as configured.
    public static func kind(builtInCommand: [String]? = nil, alsoBuiltInAs: [String] = []) -> BackendKind {
        BackendKind(name: "stdio", builtIn: builtInCommand.map { ["command": .array($0.map(JSONValue.string))] },
                    alsoBuiltInAs: alsoBuiltInAs, read: { section in
            let command = try section.optionalStrings("command") ?? []
            guard !command.isEmpty else { throw section.error("'command' must be a non-empty list") }
            var configuration = Configuration(command: command)
            if let seconds = try section.optionalDouble("initializeTimeoutSeconds") { configuration.initializeTimeout = .seconds(seconds) }
            if let seconds = try section.optionalDouble("idleTimeoutSeconds") { configuration.idleTimeout = .seconds(seconds) }
            try section.read("parallel", into: &configuration.parallel)
            try section.read("maxQueue", into: &configuration.maxQueue)
            guard (1...1024).contains(configuration.parallel) else { throw section.error("'parallel' must be from 1 to 1024, the requests served at once") }
            guard configuration.maxQueue >= 0 else { throw section.error("'maxQueue' must be 0 or more") }
            return configuration
        }, problem: { configuration in
            let files = FileManager.default
            guard let command = configuration.command.first else { return "no command" }
            if command.contains("/") { return files.isExecutableFile(atPath: command) ? nil : "\(command) is not an executable" }
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            return path.contains { files.isExecutableFile(atPath: "\($0)/\(command)") } ? nil : "\(command) is not on PATH"
        }, override: { section, overrides in
            guard let builtInCommand, case .array(let command)? = section["command"],
                  command.starts(with: builtInCommand.prefix(1).map(JSONValue.string) + ["worker"]) else { return }
            section["command"] = .array(command + overrides.workerArguments.map(JSONValue.string))
        }, start: { configuration in
            try await StdioModel.start(configuration)
        })
    }
}
