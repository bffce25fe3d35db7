import Foundation
import Loopl

/// `loopl trust [FILE]`: lets a working folder's own `loopl.json` be used.
struct TrustCommand: Command {
    static let name = "trust"
    static let abstract = "Trust a folder's loopl.json, so that it is read from that folder."
    static let help = """
        Trust a configuration file found in a working folder (./loopl.json). Such a file can name
        commands and binaries to run (stdio backends, servers, MCP servers), so loopl refuses it
        until you have read it and trusted it. This records the file's real path and SHA-256 in
        $XDG_CONFIG_HOME/loopl/trusted.json (default ~/.config/loopl/trusted.json); after any
        change to the file, trust it again. A file named by --config or $LOOPL_CONFIG needs no trust.

        USAGE: loopl trust [FILE]

        ARGUMENTS:
          FILE                   The file to trust (default: ./loopl.json).

        OPTIONS:
          -h, --help             Show this help.

        """

    var file: String

    init(arguments: inout Arguments) throws(UsageError) {
        file = arguments.positional() ?? "loopl.json"
    }

    func run(_ console: Console) async throws -> ExitCode {
        let environment = ProcessInfo.processInfo.environment
        let trusted = try ConfigTrust.trust(file, environment: environment)
        console.out("Trusted \(trusted.path) (sha256 \(trusted.sha256)).\n")
        console.err("Recorded in \(ConfigTrust.storePath(environment: environment)).")
        return .success
    }
}
