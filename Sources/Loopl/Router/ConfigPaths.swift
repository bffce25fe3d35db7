/// Makes the relative paths of a configuration file relative to the file's own folder, not to
/// the folder Loopl happens to run in: a backend's `model`, `chatTemplateFile` and `serverPath`
/// (or its old name `binary`), the program of its `command`, an MCP server's `cwd` (or, without one, its `command`), and
/// `serve`'s `apiKeyFile` and `responsesDir`. A bare command name stays a name to find on PATH.
enum ConfigPaths {
    static func resolving(_ object: JSONObject, against folder: String) -> JSONObject {
        var object = object
        if let backends = object["backends"]?.objectValue {
            object["backends"] = .object(each(backends) { entry in
                guard var section = entry.objectValue else { return entry }
                for key in ["model", "chatTemplateFile", "serverPath", "binary"] { section[key] = path(section[key], folder) }
                section["command"] = program(section["command"], folder)
                return .object(section)
            })
        }
        if let servers = object["mcpServers"]?.objectValue {
            object["mcpServers"] = .object(each(servers) { entry in
                guard var server = entry.objectValue else { return entry }
                if server["cwd"] != nil {
                    server["cwd"] = path(server["cwd"], folder)
                } else if let command = server["command"]?.stringValue, command.contains("/") {
                    server["command"] = path(server["command"], folder)
                }
                return .object(server)
            })
        }
        if var serve = object["serve"]?.objectValue {
            for key in ["apiKeyFile", "responsesDir"] { serve[key] = path(serve[key], folder) }
            object["serve"] = .object(serve)
        }
        return object
    }

    private static func each(_ object: JSONObject, _ transform: (JSONValue) -> JSONValue) -> JSONObject {
        JSONObject(object.map { ($0.key, transform($0.value)) })
    }

    /// `value` under `folder` when it is a relative path; anything else as it is.
    private static func path(_ value: JSONValue?, _ folder: String) -> JSONValue? {
        guard let text = value?.stringValue, !text.isEmpty, !text.hasPrefix("/"), !text.hasPrefix("~") else { return value }
        var relative = Substring(text)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return .string(folder + "/" + relative)
    }

    /// A command list whose program is a relative path (it has a `/`), resolved under `folder`.
    private static func program(_ value: JSONValue?, _ folder: String) -> JSONValue? {
        guard var list = value?.arrayValue, let first = list.first?.stringValue, first.contains("/") else { return value }
        list[0] = path(.string(first), folder) ?? list[0]
        return .array(list)
    }
}
