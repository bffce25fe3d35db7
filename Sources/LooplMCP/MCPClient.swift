import Loopl

/// A client of one MCP server, on stdio or over HTTP: starts it (or connects), agrees on a
/// protocol revision, lists its tools and calls them. A server that crashed or broke the
/// protocol is restarted (or connected to again) on the next call.
///
/// Revisions: 2026-07-28 (stateless: `server/discover`, then `_meta` on every request) and
/// 2025-11-25 (`initialize`, then `notifications/initialized`). As the specification asks,
/// `server/discover` is sent first; any error that is not a version error, or no answer in
/// time, means a server of the older, handshake-based revisions.
public actor MCPClient {
    public nonisolated let config: MCPServerConfig
    /// The tools as last listed.
    public nonisolated let catalog = MCPCatalog()
    /// The revision agreed on, once the server has started.
    public private(set) var revision: String?
    /// The server's own name and version, when it gave them.
    public private(set) var serverInfo: String?

    private var connection: (any MCPTransport)?
    /// Set once the server's era is known, and kept across restarts.
    private var stateless: Bool?
    private var nextId = 0
    private let gate = RequestQueue()

    /// The stateless revision and the handshake revision this client speaks.
    public static let statelessRevision = "2026-07-28"
    public static let sessionRevision = "2025-11-25"
    static let clientInfo: JSONValue = ["name": "loopl", "version": "0.1.0"]
    /// How long `server/discover` may go unanswered before the server is taken for a legacy one:
    /// a third of the timeout, and at least 3 seconds (a slow start counts).
    var probeTimeout: Duration { max(.seconds(3), config.timeout / 3) }

    public init(config: MCPServerConfig) {
        self.config = config
    }

    /// Starts the server (if it is not running) and lists its tools.
    public func start() async throws {
        try await gate.acquire()
        defer { gate.release() }
        _ = try await connect()
    }

    /// Calls the server's tool `name`; returns its result as text. A result the server marks as
    /// an error, a timeout, a crash or a protocol violation is a thrown ``LooplError``.
    public func call(_ name: String, arguments: JSONObject) async throws -> String {
        try await gate.acquire()
        defer { gate.release() }
        var connection = try await connect()
        let params: JSONObject = ["name": .string(name), "arguments": .object(arguments)]
        let result: JSONValue
        do {
            result = try await request("tools/call", params, on: connection, timeout: config.timeout, what: "calling \(name)")
        } catch where connection.sessionLost {
            // The server forgot the session (it restarted, say): a new one is started and the call sent again.
            connection = try await connect()
            result = try await request("tools/call", params, on: connection, timeout: config.timeout, what: "calling \(name)")
        }
        // A change announced during the call is listed before the model's next turn.
        if catalog.isStale { try? await list(on: connection) }
        return try MCPToolOutput.text(of: result, server: config.name, tool: name)
    }

    /// Lists the tools again if the server said its list changed.
    public func refreshIfStale() async {
        guard catalog.isStale, (try? await gate.acquire()) != nil else { return }
        defer { gate.release() }
        if let connection, connection.isUsable, catalog.isStale { try? await list(on: connection) }
    }

    /// Ends the server: closes its input, waits, then SIGTERM and SIGKILL.
    public func shutdown() async {
        let connection = self.connection
        self.connection = nil
        await connection?.shutdown()
    }

    /// The running server, started and handshaken when it is not.
    private func connect() async throws -> any MCPTransport {
        if let connection, connection.isUsable { return connection }
        if let old = connection { await old.shutdown(wait: .zero) }
        connection = nil
        let deadline = ContinuousClock.now + config.timeout
        let probing = stateless == nil
        var started = try launch()
        do {
            do {
                try await handshake(started, deadline: deadline)
            } catch let error as LooplError where error.code == .processFailed && probing {
                // Some older servers exit on a request they do not know: start again, handshake only.
                await started.shutdown(wait: .zero)
                started = try launch()
                stateless = false
                try await handshake(started, deadline: deadline)
            }
            try await list(on: started)
        } catch {
            let failure = await started.startFailure(error)
            await started.shutdown(wait: .zero)
            throw failure
        }
        connection = started
        return started
    }

    private func handshake(_ connection: any MCPTransport, deadline: ContinuousClock.Instant) async throws {
        if stateless == nil { stateless = try await probe(connection, deadline: deadline) }
        if stateless == true {
            revision = Self.statelessRevision
            connection.agreed(on: Self.statelessRevision)
        } else {
            try await initialize(connection, deadline: deadline)
        }
    }

    /// Starts the server on stdio, or readies the connection to one over HTTP.
    private func launch() throws -> any MCPTransport {
        let catalog = self.catalog
        let onNotification: @Sendable (String, JSONValue) -> Void = { [weak self] method, _ in
            guard method == "notifications/tools/list_changed" else { return }
            catalog.markStale()
            Task { await self?.refreshIfStale() }
        }
        if let http = config.http { return MCPHTTPConnection(http, server: config.name, timeout: config.timeout, onNotification: onNotification) }
        return try MCPConnection(config, onNotification: onNotification)
    }

    /// Sends `server/discover`; true when the server speaks the stateless revision.
    private func probe(_ connection: any MCPTransport, deadline: ContinuousClock.Instant) async throws -> Bool {
        let wait = min(probeTimeout, deadline - ContinuousClock.now)
        let answer: Result<JSONValue, RPCError>
        do {
            answer = try await exchange("server/discover", [:], on: connection, timeout: wait, meta: true, cancelOnTimeout: false)
        } catch let error as LooplError where error.code == .timedOut {
            return false
        }
        let offered: [String]
        switch answer {
        case .success(let result):
            offered = result["supportedVersions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if let info = result["serverInfo"] { serverInfo = Self.describe(info) }
        case .failure(let error):
            guard let supported = error.data?["supported"]?.arrayValue?.compactMap(\.stringValue) else { return false }
            offered = supported
        }
        if offered.contains(Self.statelessRevision) { return true }
        if offered.contains(where: { $0 <= Self.sessionRevision }) { return false }
        throw LooplError(.protocolViolation, "MCP server '\(config.name)' supports only revisions \(offered.joined(separator: ", ")); Loopl speaks \(Self.statelessRevision) and \(Self.sessionRevision).")
    }

    /// The handshake of the revisions before 2026-07-28.
    private func initialize(_ connection: any MCPTransport, deadline: ContinuousClock.Instant) async throws {
        let params: JSONObject = ["protocolVersion": .string(Self.sessionRevision), "capabilities": [:], "clientInfo": Self.clientInfo]
        let result = try await request("initialize", params, on: connection, timeout: deadline - ContinuousClock.now, what: "the initialize handshake")
        guard let version = result["protocolVersion"]?.stringValue else {
            throw LooplError(.protocolViolation, "MCP server '\(config.name)' answered initialize without a protocolVersion: \(Mailbox.excerpt(result.jsonText())).")
        }
        revision = version
        connection.agreed(on: version)
        if let info = result["serverInfo"] { serverInfo = Self.describe(info) }
        try await connection.send(.notification(method: "notifications/initialized", params: [:]), within: deadline - ContinuousClock.now)
    }

    /// Lists every page of tools, keeping those the config allows.
    private func list(on connection: any MCPTransport) async throws {
        let deadline = ContinuousClock.now + config.timeout
        var tools: [MCPRemoteTool] = []
        var problems: [String] = []
        var cursor: String?
        var cursors: Set<String> = []
        repeat {
            let params: JSONObject = cursor.map { ["cursor": .string($0)] } ?? [:]
            let result = try await request("tools/list", params, on: connection, timeout: deadline - ContinuousClock.now, what: "tools/list")
            guard let entries = result["tools"]?.arrayValue else {
                throw LooplError(.protocolViolation, "MCP server '\(config.name)' answered tools/list without a tools list: \(Mailbox.excerpt(result.jsonText())).")
            }
            for entry in entries {
                do throws(LooplError) {
                    guard let tool = try MCPCatalog.read(entry, server: config.name) else { continue }
                    if config.only.map({ $0.contains(tool.name) }) ?? true { tools.append(tool) }
                } catch {
                    problems.append(error.message)
                }
            }
            cursor = result["nextCursor"]?.stringValue
            if let next = cursor, !cursors.insert(next).inserted {
                problems.append("its tools/list repeated the cursor \(Mailbox.excerpt(next)); the list stops there")
                cursor = nil
            }
        } while cursor != nil
        for wanted in (config.only ?? []) + config.toolApproval.keys.sorted().filter({ !(config.only ?? []).contains($0) }) where !tools.contains(where: { $0.name == wanted }) {
            problems.append("its config names tool '\(wanted)', which the server does not offer")
        }
        catalog.replace(tools, problems: problems)
    }

    /// Sends a request and waits for its result; a JSON-RPC error is a thrown LooplError.
    private func request(_ method: String, _ params: JSONObject, on connection: any MCPTransport, timeout: Duration,
                         what: String) async throws -> JSONValue {
        switch try await exchange(method, params, on: connection, timeout: timeout, meta: stateless == true, cancelOnTimeout: true) {
        case .success(let result):
            return result
        case .failure(let error):
            throw LooplError(.invalidRequest, "MCP server '\(config.name)' refused \(what): \(error.message) (JSON-RPC error \(error.code)).")
        }
    }

    /// Sends a request and waits for its response. Throws `timedOut` (after sending
    /// `notifications/cancelled`), `processFailed` when the server ends, and `protocolViolation`.
    private func exchange(_ method: String, _ params: JSONObject, on connection: any MCPTransport, timeout: Duration,
                          meta: Bool, cancelOnTimeout: Bool) async throws -> Result<JSONValue, RPCError> {
        nextId += 1
        let id = JSONValue.integer(nextId)
        var params = params
        if meta {
            params["_meta"] = ["io.modelcontextprotocol/protocolVersion": .string(Self.statelessRevision),
                               "io.modelcontextprotocol/clientCapabilities": [:],
                               "io.modelcontextprotocol/clientInfo": Self.clientInfo]
        }
        let deadline = ContinuousClock.now + timeout
        func cancel(_ reason: String) async {
            guard cancelOnTimeout else { return }
            let notice = RPCMessage.notification(method: "notifications/cancelled", params: ["requestId": id, "reason": .string(reason)])
            // Sent from a task of its own, so that a cancelled caller does not cancel the notice.
            await Task { try? await connection.send(notice, within: .seconds(2)) }.value
        }
        do {
            try await connection.send(.request(id: id, method: method, params: .object(params)), within: timeout)
        } catch let error as LooplError where error.code == .timedOut {
            // Over HTTP the server took the request but did not answer in time.
            await cancel("timed out")
            throw error
        }
        while true {
            let message: RPCMessage
            do {
                message = try await connection.mailbox.receive(timeout: max(.zero, deadline - ContinuousClock.now), cancellable: true)
            } catch is MailboxTimeout {
                await cancel("timed out")
                throw LooplError(.timedOut, "MCP server '\(config.name)' did not answer \(method) within \(config.timeout) (its timeoutSeconds).\(connection.details)")
            } catch is CancellationError {
                await cancel("cancelled")
                throw CancellationError()
            } catch let end as MailboxEnd {
                throw connection.failure(end, during: method)
            }
            if case .response(id, let result) = message { return result }
        }
    }

    private static func describe(_ info: JSONValue) -> String? {
        guard let name = info["name"]?.stringValue else { return nil }
        return info["version"]?.stringValue.map { "\(name) \($0)" } ?? name
    }
}
