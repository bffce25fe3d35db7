import Foundation
import Loopl
import LooplAPI

/// `loopl serve`: the configured backends behind an OpenAI-compatible HTTP API.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve the backends over OpenAI's and Anthropic's HTTP APIs."
    static let help = """
        Serve the configured backends over HTTP (docs/serve.md): OpenAI's chat completions
        (POST /v1/chat/completions), completions of a raw prompt (POST /v1/completions) and
        Responses (POST /v1/responses, GET and DELETE /v1/responses/{id}), Anthropic's Messages
        (POST /v1/messages, /v1/messages/count_tokens), GET /v1/models, GET /v1/models/{id},
        Prometheus metrics (GET /metrics) and GET /health; and at / a transcript page that runs
        agents in the browser, on its own API under /loopl/v1/ (runs, sessions). A request
        names its backend by 'model': a backend's name or one of its 'aliases'; without one, the
        config's default. Models start on their first request, or at start with --preload. Runs
        until SIGINT or SIGTERM, then lets requests in flight finish and closes every backend.
        Prints 'listening on http://HOST:PORT' on standard error once it listens.

        USAGE: loopl serve [--config FILE] [--host ADDRESS] [--port N] [--api-key KEY]
                           [--backends LIST] [--preload] [--approve MODE] [-m FILE] [-t N] [-c N] [-ngl N]

        OPTIONS:
          --config FILE          The configuration file (default: $LOOPL_CONFIG, ./loopl.json
                                 once trusted with 'loopl trust', ~/.config/loopl/config.json,
                                 else built-in defaults).
          --host ADDRESS         The address to listen on (default: 127.0.0.1).
          --port N               The port, 0 to 65535; 0 picks a free one (default: 8080).
          --api-key KEY          Require this key (default: $LOOPL_API_KEY, else the config's
                                 serve.apiKeyFile, else none).
          --backends LIST        Serve only these backends, comma-separated (default: all).
          --preload              Start every served backend before listening.
          --approve MODE         ask or allow: whether agent runs' calls of tools whose config sets no
                                 "approval" wait for one (default: allow).
          -m, --model FILE       The GGUF model for every backend (default: each backend's).
          -t, --threads N        CPU threads, 1 to 256 (default: the backend's).
          -c, --ctx-size N       Context length in tokens, 16 to 1048576 (default: the backend's).
          -ngl, --gpu-layers N   Layers to offload to a GPU, 0 to 1000 (default: the backend's).
          -h, --help             Show this help.

        """

    var config: String?
    var host: String
    var port: Int
    var apiKey: String?
    var backends: [String]?
    var preload: Bool
    var overrides: BackendOverrides
    var approve: ToolApproval?

    init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.option("config")
        host = try arguments.option("host") ?? "127.0.0.1"
        port = try arguments.integer("port", in: 0...65535) ?? 8080
        apiKey = try arguments.option("api-key")
        backends = try arguments.option("backends").map { $0.split(separator: ",").map(String.init) }
        preload = arguments.flag("preload")
        if let word = try arguments.option("approve") {
            guard let approval = ToolApproval(rawValue: word) else { throw UsageError("--approve takes ask or allow, not '\(word)'.") }
            approve = approval
        }
        overrides = try arguments.backendOverrides()
    }

    func run(_ console: Console) async throws -> ExitCode {
        setenv("GGML_NO_BACKTRACE", "1", 0)
        let signals = try SignalWatch([SIGINT, SIGTERM])
        var config = try BackendFactory.config(path: config, console: console)
        try config.apply(overrides)
        var settings = try ServeSettings(section: config.serve)
        if let approve { settings.approval = approve }
        let key = try settings.apiKey(flag: apiKey)
        if key == nil, !["127.0.0.1", "localhost", "::1"].contains(host) {
            console.err("warning: Listening on \(host) without an API key: anyone who reaches this address can use the models. Set --api-key, LOOPL_API_KEY or serve.apiKeyFile.")
        }
        let directory = try ModelDirectory(config: config, served: backends)
        if preload { try await directory.preload() }
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
