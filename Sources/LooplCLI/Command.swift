/// A `loopl` subcommand.
protocol Command: Sendable {
    /// The word that selects it: `loopl NAME`.
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// The options it takes, as its help lists them.
    static var options: [CLIOption] { get }

    /// Reads the command's arguments; throws ``UsageError`` for a wrong command line.
    init(arguments: inout Arguments) throws(UsageError)

    /// Does the work. A ``LooplError`` or other error exits with status 1.
    func run(_ console: Console) async throws -> ExitCode
}

extension Command {
    static var options: [CLIOption] { [] }
}
