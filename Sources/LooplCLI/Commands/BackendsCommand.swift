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
        \(ListingOptions.help(json: ""))

        """

    var options: ListingOptions

    init(arguments: inout Arguments) throws(UsageError) {
        options = try ListingOptions(arguments: &arguments)
    }

    func run(_ console: Console) async throws -> ExitCode {
        let config = try BackendFactory.config(path: options.config, console: console)
        var rows = JSONObject()
        var lines: [String] = []
        for name in config.backends.keys.sorted() {
            guard let backend = config.backends[name] else { continue }
            let problem = backend.problem
            let marks = [name == config.defaultBackend ? "default" : nil, config.fallback.contains(name) ? "fallback" : nil].compactMap { $0 }
            rows[name] = ["kind": .string(backend.kind), "usable": .bool(problem == nil), "reason": problem.map(JSONValue.string) ?? .null,
                          "default": .bool(name == config.defaultBackend)]
            lines.append("\(name.padding(to: 10)) \(backend.kind.padding(to: 7)) \(problem == nil ? "usable" : "not usable: \(problem ?? "")")"
                         + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))"))
        }
        if options.json {
            console.out(JSONValue.object(["source": config.source.map(JSONValue.string) ?? "built-in", "backends": .object(rows)]).jsonText() + "\n")
        } else {
            console.out("configuration: \(config.source ?? "built-in defaults")\n" + lines.joined(separator: "\n") + "\n")
        }
        return .success
    }
}
