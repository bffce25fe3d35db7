import Foundation
import Loopl
import LooplStdio

/// `loopl worker`: serves a configured backend over the stdio protocol on standard input and output.
struct WorkerCommand: Command {
    static let name = "worker"
    static let abstract = "Serve a backend over the stdio protocol (for the stdio backend)."
    static let help = """
        Serve one configured backend over Loopl's stdio protocol (docs/stdio-protocol.md):
        JSON-RPC requests on standard input, events and responses on standard output, logs on
        standard error. Exits when standard input closes. The stdio backend runs this as its worker,
        so that a crash inside the runtime ends the worker, not the host.

        USAGE: loopl worker [--backend NAME] [--config FILE] [--threads N]

        OPTIONS:
          --backend NAME   The backend to serve (default: the config's default route).
          --config FILE    The configuration file (default: $LOOPL_CONFIG, ./loopl.json,
                           ~/.config/loopl/config.json, else built-in defaults).
          --threads N      CPU threads for the served backend, 1 to 256 (default: its config's).
          -h, --help       Show this help.

        """

    var backend: String?
    var config: String?
    var threads: Int?

    init(arguments: inout Arguments) throws(UsageError) {
        backend = try arguments.option("backend")
        config = try arguments.option("config")
        threads = try arguments.integer("threads", in: 1...256)
    }

    func run(_ console: Console) async throws -> ExitCode {
        // A llama.cpp assertion would otherwise attach a debugger for a backtrace, whose output
        // lands on standard output, the protocol's channel: the host then sees a protocol
        // violation instead of a worker that aborted.
        setenv("GGML_NO_BACKTRACE", "1", 0)
        var config = try BackendFactory.config(path: config)
        if let threads { try config.setThreads(threads) }
        let router = Router(config: config)
        if let backend, try router.config.backend(backend).kind == "stdio" {
            throw LooplError(.invalidConfiguration, "Backend '\(backend)' is itself a stdio worker; serve a backend of kind llama or server.")
        }
        let model = try await router.model(named: backend) { console.err("warning: \($0)") }
        await StdioWorker(model: model, name: "loopl worker (\(backend ?? "default"))", version: CLI.version).run()
        return .success
    }
}
