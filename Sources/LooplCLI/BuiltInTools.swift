import Loopl
import LooplMCP

/// The command line's built-in tool sets (``BuiltInToolSet``, enabled with `--tools`) and
/// their config (`tools`).
enum BuiltInTools {
    /// The names `--tools` and the config's `tools` take.
    static var names: [String] { BuiltInToolSet.names }

    /// The error for a name of `--tools` (or the serve API's `tools`) that is no set.
    static func unknown(_ name: String) -> String { "Unknown tool '\(name)': use \(BuiltInToolSet.listed(last: " or "))." }

    /// Each built-in name's `approval` in the config's `tools` object, `{"calc": {"approval": "ask"}}`;
    /// an unknown name or key is an error.
    static func approvals(_ section: JSONObject) throws -> [String: ToolApproval] {
        var approvals: [String: ToolApproval] = [:]
        for (name, value) in section {
            guard names.contains(name) else {
                throw ConfigSection.error("'tools' names '\(name)', which is not a built-in tool (\(BuiltInToolSet.listed()))")
            }
            guard let object = value.objectValue else { throw ConfigSection.error("'tools.\(name)' must be an object") }
            var reader = ConfigSection(object, context: "tools.\(name)")
            approvals[name] = try reader.optional("approval", as: ToolApproval.self)
            try reader.finish()
        }
        return approvals
    }

    /// The tools of `names`, each with its config `approvals` (none: the run's default).
    static func make(_ names: [String], root: String, approvals: [String: ToolApproval]) throws -> [any Tool] {
        var made: [any Tool] = []
        for name in names {
            guard var tools = try BuiltInToolSet.named(name)?.tools(root: root) else { continue }
            if let approval = approvals[name] { tools = tools.map { $0.withApproval(approval) } }
            made += tools
        }
        return made
    }

    /// How to let a call of `tool` run without asking, for a user who cannot be asked.
    static func allowHint(_ tool: (any Tool)?) -> String {
        guard let tool, tool.approval != nil else { return "pass --approve allow" }
        if let builtIn = BuiltInToolSet.holding(tool.name) {
            return "set \"approval\": \"allow\" in the config's tools.\(builtIn.name)"
        }
        guard let remote = tool as? MCPTool else { return "set \"approval\": \"allow\" for it in the config" }
        return "set \"toolApproval\": {\"\(remote.remoteName)\": \"allow\"} in the config's mcpServers.\(remote.client.config.name)"
    }
}
