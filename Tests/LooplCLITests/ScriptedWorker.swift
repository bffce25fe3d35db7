import Foundation
import Loopl

/// The Python reference worker (backends/python/worker.py) replaying scripted turns, as the
/// default backend of a config: for CLI tests that need a model to call given tools.
enum ScriptedWorker {
    /// A turn that calls `name` with `arguments`.
    static func call(_ name: String, _ arguments: JSONObject) -> JSONValue {
        ["toolCalls": [["name": .string(name), "arguments": .object(arguments)]]]
    }

    /// Writes to `folder` the script of `turns` and a config whose default backend replays it,
    /// with `extra` entries (as `mcpServers`); returns the config's path.
    static func config(in folder: String, turns: [JSONValue], extra: JSONObject = [:]) throws -> String {
        let script: JSONValue = ["nativeToolCalls": true, "turns": .array(turns)]
        try script.jsonText().write(toFile: folder + "/script.json", atomically: true, encoding: .utf8)
        let worker = ServeProcess.root + "/backends/python/worker.py"
        var config: JSONObject = ["default": "py",
                                  "backends": ["py": ["kind": "stdio", "command": ["python3", .string(worker), "--script", .string(folder + "/script.json")]]]]
        for (key, value) in extra { config[key] = value }
        try JSONValue.object(config).jsonText().write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        return folder + "/config.json"
    }

    /// A new temporary folder.
    static func folder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-\(name)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
