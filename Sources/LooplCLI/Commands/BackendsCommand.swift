import Foundation
import Loopl

/// `loopl backends`: the configured backends and whether each can run now.
struct BackendsCommand: Command {
    static let name = "backends"
    static let abstract = "List the configured backends and whether each is usable now."
    static let help = """
        List the configured backends, their kind, and whether each is usable now (its model file
        and binary present); when one is not, say why.

        USAGE: loopl backends [--config FILE] [--json]

        OPTIONS:
          --config FILE   The configuration file (see loopl run --help).
          --json          Print one JSON object.
          -h, --help      Show this help.

        """

    var config: String?
    var json: Bool

    init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.option("config")
        json = arguments.flag("json")
    }

    func run(_ console: Console) async throws -> ExitCode {
        let config = try LooplConfig.load(explicit: config, workerCommand: BackendFactory.selfCommand)
        var rows = JSONObject()
        var lines: [String] = []
        for name in config.backends.keys.sorted() {
            guard let backend = config.backends[name] else { continue }
            let problem = Self.problem(backend)
            let marks = [name == config.defaultBackend ? "default" : nil, config.fallback.contains(name) ? "fallback" : nil].compactMap { $0 }
            rows[name] = ["kind": .string(backend.kind), "usable": .bool(problem == nil), "reason": problem.map(JSONValue.string) ?? .null,
                          "default": .bool(name == config.defaultBackend)]
            lines.append("\(name.padding(to: 10)) \(backend.kind.padding(to: 7)) \(problem == nil ? "usable" : "not usable: \(problem ?? "")")"
                         + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))"))
        }
        if json {
            console.out(JSONValue.object(["source": config.source.map(JSONValue.string) ?? "built-in", "backends": .object(rows)]).jsonText() + "\n")
        } else {
            console.out("configuration: \(config.source ?? "built-in defaults")\n" + lines.joined(separator: "\n") + "\n")
        }
        return .success
    }

    /// Why a backend cannot run now, or nil.
    static func problem(_ backend: BackendConfig) -> String? {
        let files = FileManager.default
        func missing(_ path: String, _ what: String) -> String? {
            files.fileExists(atPath: path) ? nil : "no \(what) at \(path)"
        }
        switch backend {
        case .llama(let llama): return missing(llama.model, "model file")
        case .server(let server):
            if let url = server.url { return URL(string: url)?.host == nil ? "'\(url)' is not a URL" : nil }
            return missing(server.model ?? "", "model file") ?? missing(server.binary ?? LooplHome.llamaServer, "llama-server")
        case .stdio(let stdio):
            guard let command = stdio.command.first else { return "no command" }
            if command.contains("/") { return files.isExecutableFile(atPath: command) ? nil : "\(command) is not an executable" }
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            return path.contains { files.isExecutableFile(atPath: "\($0)/\(command)") } ? nil : "\(command) is not on PATH"
        }
    }
}
