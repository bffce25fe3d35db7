import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import LooplHTTP

/// `loopl ps`: the models a running `loopl serve` has loaded, from its `/v1/models`.
struct PsCommand: Command {
    static let name = "ps"
    static let abstract = "List the models a running loopl serve has loaded."
    static let help = """
        List the models that a running 'loopl serve' has loaded or is loading (docs/serve.md): each
        one's name, kind, memory (the estimate of its weights and KV cache it was loaded with), how
        long it has been idle, the requests in flight (and queued), and until when it stays loaded
        (its keep-alive, or 'forever'). It reads the server's GET /v1/models.

        USAGE: loopl ps [--url URL] [--api-key KEY] [--json]

        OPTIONS:
        \(CLIOption.help(options))

        """

    static let url = CLIOption("url", "URL", default: "http://127.0.0.1:8080", help: "The server's address.")
    static let apiKey = CLIOption("api-key", "KEY", environment: "LOOPL_API_KEY", help: "The server's key.")
    static let json = CLIOption.flag("json", help: "Print the loaded models' /v1/models entries as one JSON object.")
    static let options = [url, apiKey, json, CLIOption.showHelp]

    var url: String
    var apiKey: String?
    var json: Bool

    init(arguments: inout Arguments) throws(UsageError) {
        url = try arguments.value(Self.url) ?? "http://127.0.0.1:8080"
        apiKey = try arguments.value(Self.apiKey)
        json = arguments.flag(Self.json)
    }

    func run(_ console: Console) async throws -> ExitCode {
        let loaded = try await Self.loaded(from: url, apiKey: apiKey)
        if json {
            console.out(JSONValue.object(["models": .array(loaded)]).jsonText() + "\n")
        } else {
            console.out(Self.table(loaded, now: Int(Date().timeIntervalSince1970)))
        }
        return .success
    }

    /// The entries of the server's `/v1/models` for backends loaded or loading (those with `memory`).
    static func loaded(from base: String, apiKey: String?) async throws -> [JSONValue] {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let address = URL(string: trimmed + "/v1/models"), ["http", "https"].contains(address.scheme?.lowercased() ?? ""),
              address.host != nil else {
            throw LooplError(.invalidRequest, "'\(base)' is not an http:// or https:// address: give --url like http://127.0.0.1:8080.")
        }
        var request = URLRequest(url: address)
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await HTTPResponseStream.open(request).collect(advice: "Is \(base) a loopl serve?")
        } catch {
            throw LooplError(.connectionFailed, "Nothing answered at \(base) (\(error)): is loopl serve running there? Give its address with --url.")
        }
        switch answer.status {
        case 200: break
        case 401: throw LooplError(.unauthorized, "\(base) refused the key: give it with --api-key or $LOOPL_API_KEY.")
        default: throw LooplError(.httpError, "\(base)/v1/models answered \(answer.status): is it a loopl serve?")
        }
        guard let entries = (try? JSONValue(parsing: answer.body))?["data"]?.arrayValue else {
            throw LooplError(.protocolViolation, "\(base)/v1/models did not answer a model list: is it a loopl serve?")
        }
        return entries.filter { $0["memory"]?.intValue != nil }
    }

    /// The table of `entries` (loaded models' `/v1/models` entries) at the Unix time `now`.
    static func table(_ entries: [JSONValue], now: Int) -> String {
        let rows = [["NAME", "KIND", "STATE", "MEMORY", "IDLE", "IN FLIGHT", "UNTIL"]] + entries.map { entry in
            let inFlight = entry["in_flight"]?.intValue ?? 0
            let queued = entry["queued"]?.intValue ?? 0
            let busy = inFlight + queued > 0
            let until = busy ? "busy" : entry["expires_at"]?.intValue.map { "in " + duration($0 - now) } ?? "forever"
            return [entry["id"]?.stringValue ?? "?", entry["kind"]?.stringValue ?? "-", entry["state"]?.stringValue ?? "-",
                    memory(entry["memory"]?.intValue ?? 0, size: entry["size"]?.intValue),
                    entry["idle_seconds"]?.intValue.map(duration) ?? "-",
                    queued > 0 ? "\(inFlight) (+\(queued) queued)" : "\(inFlight)", until]
        }
        let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// `bytes` in MiB (or GiB from 10 GiB), the file's `size` for a model estimated at nothing.
    static func memory(_ bytes: Int, size: Int?) -> String {
        let shown = bytes > 0 ? bytes : size ?? 0
        guard shown > 0 else { return "-" }
        let mib = Double(shown) / 1_048_576
        return mib >= 10240 ? String(format: "%.1f GiB", mib / 1024) : String(format: "%.0f MiB", mib)
    }

    /// `seconds` as people read it: `42 s`, `4 min`, `2 h 5 min`, `3 days`.
    static func duration(_ seconds: Int) -> String {
        let seconds = max(seconds, 0)
        switch seconds {
        case ..<120: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<172_800: return "\(seconds / 3600) h" + (seconds % 3600 >= 60 ? " \(seconds % 3600 / 60) min" : "")
        default: return "\(seconds / 86400) days"
        }
    }
}
