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
        so that a crash inside the runtime ends the worker, not the host. It serves as many
        requests at once as the backend's 'parallel' (default 4).

        USAGE: loopl worker [--backend NAME] [--config FILE] [-m FILE] [-t N] [-c N] [-ngl N]

        OPTIONS:
        \(CLIOption.help(options))

        """

    /// `--backend`, without `$LOOPL_BACKEND`: the host names the backend its worker serves.
    static let backend = CLIOption("backend", "NAME", defaultHelp: "the config's default route", help: "The backend to serve.")
    static let options = [backend, SharedOptions.config] + SharedOptions.overridesFor("The GGUF model to serve.") + [CLIOption.showHelp]

    var backend: String?
    var config: String?
    var overrides: BackendOverrides

    init(arguments: inout Arguments) throws(UsageError) {
        backend = try arguments.value(Self.backend)
        config = try arguments.value(SharedOptions.config)
        overrides = try arguments.backendOverrides()
    }

    func run(_ console: Console) async throws -> ExitCode {
        // A llama.cpp assertion would otherwise attach a debugger for a backtrace, whose output
        // lands on standard output, the protocol's channel: the host then sees a protocol
        // violation instead of a worker that aborted.
        setenv("GGML_NO_BACKTRACE", "1", 0)
        var config = try BackendFactory.config(path: config, console: console)
        try config.apply(overrides)
        let router = Router(config: config)
        if let backend, try router.config.backend(backend).kind == "stdio" {
            throw LooplError(.invalidConfiguration, "Backend '\(backend)' is itself a stdio worker; serve a backend of kind llama or server.")
        }
        let served = try router.config.backend(backend ?? router.config.defaultBackend)
        let parallel = served.section["parallel"]?.intValue ?? 4
        let model = try await router.model(named: backend) { console.err("warning: \($0)") }
        await StdioWorker(model: model, name: "loopl worker (\(backend ?? "default"))", version: CLI.version,
                          concurrentRequests: parallel).run()
        return .success
    }
}
