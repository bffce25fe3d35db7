import Foundation
import Loopl

/// `loopl serve`'s settings: the config's `serve` object, under the command line's flags.
package struct ServeSettings: Sendable {
    /// The largest request body accepted (`serve.maxRequestBytes`, default 16 MiB).
    package var maxRequestBytes = 16 * 1024 * 1024
    /// The file holding the API key (`serve.apiKeyFile`), read when no key is given otherwise.
    package var apiKeyFile: String?
    /// How long requests in flight may run on after SIGINT or SIGTERM (`serve.shutdownGraceSeconds`, default 10).
    package var shutdownGrace: Duration = .seconds(10)
    /// How long a streamed answer waits for its first event before it sends its head and
    /// keep-alive comments (`serve.keepAliveSeconds` is their interval, default 15).
    package var keepAliveInterval: Duration = .seconds(15)
    /// The folder where stored Responses API responses are also written (`serve.responsesDir`);
    /// nil keeps them in memory only.
    package var responsesDir: String?
    /// The browser origins allowed to call the API (`serve.corsOrigins`); none by default.
    package var corsOrigins: [String] = []
    /// The names the server answers to besides its own addresses (`serve.allowedHosts`), each with
    /// any port; `*` answers to every name.
    package var allowedHosts: [String] = []
    /// Whether `GET /metrics` answers without the API key (`serve.metricsPublic`, default false).
    package var metricsPublic = false
    /// How long an agent run waits for a call's approval before the call is denied
    /// (`serve.approvalTimeoutSeconds`, default 300).
    package var approvalTimeout: Duration = .seconds(300)
    /// Whether agent runs' calls of tools whose config sets no approval wait for one (`--approve`).
    package var approval: ToolApproval = .allow
    /// The folder of the page's saved conversations (`serve.sessionsDir`); nil is
    /// `$XDG_DATA_HOME/loopl/sessions`.
    package var sessionsDir: String?
    /// The folder whose GGUF files are served as models of their own (`serve.modelsDir`, or
    /// `--models-dir`); nil: none.
    package var modelsDir: String?
    /// The backend keys of each model of ``modelsDir`` (`serve.modelDefaults`; `kind` defaults to `llama`).
    package var modelDefaults: JSONObject = [:]
    /// How many models stay loaded at once (`serve.maxLoaded`) and in how much memory
    /// (`serve.memoryBudgetMiB`, default three quarters of physical memory).
    package var budget = ModelBudget(bytes: ModelBudget.defaultBytes)

    package init() {}

    /// Reads the config's `serve` object, whose paths are relative to `folder` (the config file's);
    /// unknown keys and wrong values are errors.
    package init(section: JSONObject, folder: String? = nil) throws {
        var reader = ConfigSection(section, context: "serve", folder: folder)
        try self.init(reading: &reader)
    }

    /// Reads the `serve` object of `reader`.
    package init(reading reader: inout ConfigSection) throws {
        if let bytes = try reader.optionalInt("maxRequestBytes") {
            guard (1024...(1 << 30)).contains(bytes) else { throw reader.error("maxRequestBytes must be 1024 to 1073741824") }
            maxRequestBytes = bytes
        }
        apiKeyFile = try reader.optionalPath("apiKeyFile")
        if let seconds = try reader.optionalDouble("shutdownGraceSeconds") {
            guard (0...3600).contains(seconds) else { throw reader.error("shutdownGraceSeconds must be 0 to 3600") }
            shutdownGrace = .milliseconds(Int(seconds * 1000))
        }
        if let seconds = try reader.optionalDouble("keepAliveSeconds") {
            guard (0.05...600).contains(seconds) else { throw reader.error("keepAliveSeconds must be 0.05 to 600") }
            keepAliveInterval = .milliseconds(Int(seconds * 1000))
        }
        responsesDir = try reader.optionalPath("responsesDir")
        corsOrigins = try reader.optionalStrings("corsOrigins") ?? []
        if let bad = corsOrigins.first(where: { !CORSPolicy.isOrigin($0) }) {
            throw reader.error("corsOrigins entry '\(bad)' is not an origin such as https://app.example.com (scheme and host, no path), or *")
        }
        allowedHosts = try reader.optionalStrings("allowedHosts") ?? []
        if let bad = allowedHosts.first(where: { !Self.isHostName($0) }) {
            throw reader.error("allowedHosts entry '\(bad)' is not a host name such as proxy.example.com, an address (IPv6 in brackets) or *; give no scheme, port or path: an entry matches its name with any port")
        }
        metricsPublic = try reader.optionalBool("metricsPublic") ?? false
        if let seconds = try reader.optionalDouble("approvalTimeoutSeconds") {
            guard (1...86_400).contains(seconds) else { throw reader.error("approvalTimeoutSeconds must be 1 to 86400") }
            approvalTimeout = .milliseconds(Int(seconds * 1000))
        }
        sessionsDir = try reader.optionalPath("sessionsDir")
        modelsDir = try reader.optionalPath("modelsDir")
        modelDefaults = try reader.optionalObject("modelDefaults") ?? [:]
        if let count = try reader.optionalInt("maxLoaded") {
            guard count >= 1 else { throw reader.error("maxLoaded must be 1 or more") }
            budget.maxLoaded = count
        }
        if let mib = try reader.optionalInt("memoryBudgetMiB") {
            guard mib >= 1 else { throw reader.error("memoryBudgetMiB must be 1 or more") }
            budget.bytes = mib << 20
        }
        try reader.finish()
    }

    /// Whether `text` is `*` or a name a `Host` header can carry, without a port.
    static func isHostName(_ text: String) -> Bool {
        text == "*" || HostCheck.split(text).map { $0.port == nil && !text.hasSuffix(":") } ?? false
    }

    /// The API key: `flag`, else `$LOOPL_API_KEY`, else the first line of ``apiKeyFile``; nil
    /// when none is set. A key file that others can read is refused.
    package func apiKey(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> APIKey? {
        if let flag, !flag.isEmpty { return APIKey(flag) }
        if let key = environment["LOOPL_API_KEY"], !key.isEmpty { return APIKey(key) }
        guard let apiKeyFile else { return nil }
        var info = stat()
        guard stat(apiKeyFile, &info) == 0, let data = FileManager.default.contents(atPath: apiKeyFile) else {
            throw LooplError(.invalidConfiguration, "Cannot read serve.apiKeyFile \(apiKeyFile).")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw LooplError(.invalidConfiguration, "serve.apiKeyFile \(apiKeyFile) can be read by other users; run 'chmod 600 \(apiKeyFile)'.")
        }
        let key = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !key.isEmpty else { throw LooplError(.invalidConfiguration, "serve.apiKeyFile \(apiKeyFile) is empty.") }
        return APIKey(key)
    }
}
