import Loopl

/// The `loopl` command line: picks the subcommand, runs it, and maps failures to exit codes.
package enum CLI {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        RunCommand.self,
        ChatCommand.self,
        BackendsCommand.self,
        ToolsCommand.self,
        ParseCommand.self,
        TemplateCommand.self,
        InspectCommand.self,
        GrammarCommand.self,
        BenchCommand.self,
        SmokeCommand.self,
        ServeCommand.self,
        PsCommand.self,
        WorkerCommand.self,
        WorkerCheckCommand.self,
        TrustCommand.self,
        CacheCommand.self,
    ]

    static var help: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(to: width))  \($0.abstract)" }.joined(separator: "\n")
        return """
            loopl: run tool-using agents on local language models.

            USAGE: loopl <command> [options]

            COMMANDS:
            \(list)

            OPTIONS:
              -h, --help     Show help for loopl or for a command.
              --version      Show the version.

            Run 'loopl <command> --help' for a command's options.

            """
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    package static func run(_ arguments: [String], console: Console = .standard) async -> ExitCode {
        guard let first = arguments.first else {
            console.err(help + "error: Name a command.")
            return .usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            console.out(help)
            return .success
        }
        if first == "--version" {
            console.out(version + "\n")
            return .success
        }
        guard let type = commands.first(where: { $0.name == first }) else {
            console.err("error: Unknown command '\(first)'. Run 'loopl --help' for the list.")
            return .usage
        }
        var rest = Arguments(Array(arguments.dropFirst()))
        if rest.wantsHelp {
            console.out(type.help)
            return .success
        }
        let command: any Command
        do {
            command = try type.init(arguments: &rest)
            try rest.finish()
        } catch {
            console.err("error: \(error.message)\nRun 'loopl \(type.name) --help' for its options.")
            return .usage
        }
        let status = await Warnings.routing(to: { console.err("loopl: warning: " + $0) }) {
            await execute(command, name: type.name, console: console)
        }
        await MCPSetup.shutdownAll()
        return status
    }

    /// Runs a parsed command, mapping its errors to messages and exit codes.
    private static func execute(_ command: any Command, name: String, console: Console) async -> ExitCode {
        do {
            return try await command.run(console)
        } catch let error as UsageError {
            console.err("error: \(error.message)\nRun 'loopl \(name) --help' for its options.")
            return .usage
        } catch let error as LooplError {
            console.err("error: \(error.message)")
            return .failure
        } catch is CancellationError {
            console.err("error: Cancelled.")
            return .failure
        } catch {
            console.err("error: \(error)")
            return .failure
        }
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
