import Foundation
import Loopl
import LooplAPI

/// `loopl serve`: the configured backends behind an OpenAI-compatible HTTP API.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve the backends over OpenAI's, Anthropic's and Ollama's HTTP APIs."
    static let help = """
        Serve the configured backends over HTTP (docs/serve.md): OpenAI's, Anthropic's and
        Ollama's APIs, and at / a transcript page that runs agents in the browser on its own API
        under /loopl/v1/. A request names its backend by 'model': a backend's name or one of its
        'aliases', or a GGUF file of --models-dir by its stem; without one, the config's default.
        Models start on their first request, or at start with --preload. Runs until SIGINT or SIGTERM, then lets requests in flight finish
        and closes every backend. Prints 'listening on http://HOST:PORT' on standard error once
        it listens.

        USAGE: loopl serve [--config FILE] [--host ADDRESS] [--port N] [--api-key KEY]
                           [--backends LIST] [--models-dir DIR] [--preload] [--approve MODE]
                           [-m FILE] [-t N] [-c N] [-ngl N]

        OPTIONS:
        \(CLIOption.help(options))

        ENDPOINTS (each path under /v1 answers without it too):
        \(APIServer.endpointList)

        """

    static let host = CLIOption("host", "ADDRESS", default: "127.0.0.1", help: "The address to listen on.")
    static let port = CLIOption("port", "N", .integer(0...65535), default: "8080", help: "The port, {range}; 0 picks a free one.")
    static let apiKey = CLIOption("api-key", "KEY", defaultHelp: "$LOOPL_API_KEY, else the config's serve.apiKeyFile, else none",
                                  help: "Require this key.")
    static let backends = CLIOption("backends", "LIST", defaultHelp: "all", help: "Serve only these backends, comma-separated.")
    static let modelsDir = CLIOption("models-dir", "DIR", defaultHelp: "the config's serve.modelsDir, else none",
                                     help: "Serve every GGUF file in DIR as a model named by its stem, with serve.modelDefaults.")
    static let preload = CLIOption.flag("preload", help: "Start every served backend before listening.")
    static let approve = SharedOptions.approve.described("ask or allow: whether agent runs' calls of tools whose config sets no "
                                                         + "\"approval\" wait for one.", defaultHelp: "allow")
    static let options = [SharedOptions.config, host, port, apiKey, backends, modelsDir, preload, approve] + SharedOptions.overridesForEvery
        + [CLIOption.showHelp]

    var config: String?
    var host: String
    var port: Int
    var apiKey: String?
    var backends: [String]?
    var modelsDir: String?
    var preload: Bool
    var overrides: BackendOverrides
    var approve: ToolApproval?

    init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.value(SharedOptions.config)
        host = try arguments.value(Self.host) ?? "127.0.0.1"
        port = try arguments.integer(Self.port) ?? 8080
        apiKey = try arguments.value(Self.apiKey)
        backends = try arguments.list(Self.backends)
        modelsDir = try arguments.value(Self.modelsDir)
        preload = arguments.flag(Self.preload)
        approve = try arguments.value(Self.approve).flatMap(ToolApproval.init(rawValue:))
        overrides = try arguments.backendOverrides()
    }

    func run(_ console: Console) async throws -> ExitCode {
        setenv("GGML_NO_BACKTRACE", "1", 0)
        let signals = try SignalWatch([SIGINT, SIGTERM])
        var config = try BackendFactory.config(path: config, console: console)
        try config.apply(overrides)
        var settings = try ServeSettings(section: config.serve, folder: config.folder)
        if let approve { settings.approval = approve }
        let key = try settings.apiKey(flag: apiKey)
        if key == nil, !["127.0.0.1", "localhost", "::1"].contains(host) {
            console.err("warning: Listening on \(host) without an API key: anyone who reaches this address can use the models. Set --api-key, LOOPL_API_KEY or serve.apiKeyFile.")
        }
        if settings.allowedHosts.contains("*") {
            console.err("warning: serve.allowedHosts is \"*\": the server answers to any host name, so a web page whose name is made to point at this machine (DNS rebinding) can read its answers. List the names it is reached by instead.")
        }
        if let modelsDir { settings.modelsDir = URL(fileURLWithPath: modelsDir).path }
        let directory = try ModelDirectory(config: config, served: backends, folder: settings.modelsDir.map(ModelFolder.init(path:)),
                                           modelDefaults: settings.modelDefaults, budget: settings.budget)
        if preload { try await directory.preload() }
        await directory.watch()
        let server = try APIServer(directory: directory, host: host, port: port, key: key, settings: settings,
                                   toolkit: ServeToolkit.make(config: config)) {
            console.err("listening on http://\(host.contains(":") ? "[\(host)]" : host):\($0)")
        }
        let signal = await signals.next()
        console.err("loopl serve: \(signal == SIGINT ? "SIGINT" : "SIGTERM"), finishing the requests in flight")
        await server.shutdown()
        return .success
    }
}
