import Loopl
import LooplHTTP

/// The page's own API under `/loopl/v1/`: runs, their cancel and approvals, sessions, and the settings the page
/// starts from.
struct LooplRoutes: Sendable {
    let runs: RunsEndpoint
    let sessions: SessionsEndpoint
    let defaultModel: String?

    init(chat: ChatEndpoint, toolkit: AgentToolkit, store: SessionStore, defaultModel: String?,
         approval: ToolApproval, approvalTimeout: Duration) {
        runs = RunsEndpoint(chat: chat, toolkit: toolkit, store: store, approval: approval, approvalTimeout: approvalTimeout)
        sessions = SessionsEndpoint(store: store)
        self.defaultModel = defaultModel
    }

    /// Answers `path` (what follows `/loopl/v1`).
    func handle(_ path: String, _ request: HTTPRequest, _ responder: HTTPResponder) async {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { String($0).removingPercentEncoding ?? "" }
        switch (parts.first ?? "", parts.count) {
        case ("runs", 1):
            guard request.method == "POST" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["POST"])) }
            await runs.start(request, responder)
        case ("runs", 3) where parts[2] == "cancel":
            runs.cancel(parts[1], request, responder)
        case ("runs", 4) where parts[2] == "approvals":
            runs.approve(parts[1], call: parts[3], request, responder)
        case ("sessions", 1):
            sessions.list(request, responder)
        case ("sessions", 2):
            sessions.handle(parts[1], request, responder)
        case ("settings", 1):
            guard request.method == "GET" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["GET"])) }
            responder.respond(json: settings)
        default:
            responder.respond(.notFound(request.path))
        }
    }

    /// What the page starts from: the default model, the built-in tools and the MCP servers.
    private var settings: JSONValue {
        ["model": defaultModel.map(JSONValue.string) ?? .null,
         "tools": .array(runs.toolkit.builtIn.map(JSONValue.string)),
         "mcp": .array(runs.toolkit.mcpServers.map(JSONValue.string))]
    }
}
