import Loopl
import LooplMCP

/// The command line's built-in tools (`--tools calc,time,files`) and their config (`tools`).
enum BuiltInTools {
    /// The names `--tools` and the config's `tools` take.
    static let names = ["calc", "time", "files"]

    /// Each built-in name's `approval` in the config's `tools` object, `{"calc": {"approval": "ask"}}`;
    /// an unknown name or key is an error.
    static func approvals(_ section: JSONObject) throws -> [String: ToolApproval] {
        var approvals: [String: ToolApproval] = [:]
        for (name, value) in section {
            guard names.contains(name) else {
                throw ConfigSection.error("'tools' names '\(name)', which is not a built-in tool (calc, time, files)")
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
            var tools: [any Tool]
            switch name {
            case "calc": tools = [CalculatorTool()]
            case "time": tools = [DateTimeTool()]
            default:
                let fileRoot = try FileRoot(root)
                tools = [ListFilesTool(root: fileRoot), ReadFileTool(root: fileRoot)]
            }
            if let approval = approvals[name] { tools = tools.map { $0.withApproval(approval) } }
            made += tools
        }
        return made
    }

    /// How to let a call of `tool` run without asking, for a user who cannot be asked.
    static func allowHint(_ tool: (any Tool)?) -> String {
        guard let tool, tool.approval != nil else { return "pass --approve allow" }
        if let builtIn = ["calculator": "calc", "current_time": "time", "list_files": "files", "read_file": "files"][tool.name] {
            return "set \"approval\": \"allow\" in the config's tools.\(builtIn)"
        }
        guard let remote = tool as? MCPTool else { return "set \"approval\": \"allow\" for it in the config" }
        return "set \"toolApproval\": {\"\(remote.remoteName)\": \"allow\"} in the config's mcpServers.\(remote.client.config.name)"
    }
}
