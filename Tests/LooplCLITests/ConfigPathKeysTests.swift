import Foundation
import Loopl
import LooplAPI
@testable import LooplCLI
import LooplMCP
import Testing

/// Every path key of every section of a configuration file, as its reader declares it, is
/// relative to the file's folder: the walk finds the keys by reading, so a new one is covered.
@Suite struct ConfigPathKeysTests {
    /// Each section's reader, with the least it needs to read.
    static func sections() throws -> [(name: String, seed: JSONObject, read: (inout ConfigSection) throws -> Void)] {
        try BackendFactory.kinds.map { kind in
            (kind.name, kind.name == "stdio" ? ["command": ["worker"]] : [:], { try kind.read(&$0) })
        } + [
            ("serve", [:], { _ = try ServeSettings(reading: &$0) }),
            ("mcpServers entry", ["command": "server"], { _ = try MCPServerConfig(name: "s", reading: &$0, variables: [:]) }),
        ]
    }

    @Test func everyDeclaredPathKeyIsRelativeToTheConfigFilesFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-path-keys-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var found: [String] = []
        for (name, seed, read) in try Self.sections() {
            for (key, kind) in try Self.pathKeys(seed, folder: folder, read: read) {
                found.append("\(name): \(key)")
                let relative = "rel/\(name)/\(key)"
                try FileManager.default.createDirectory(atPath: folder + "/rel/\(name)", withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: folder + "/" + relative, contents: Data())  // a template file is read
                for (written, expected) in [(relative, folder + "/" + relative), (folder + "/" + relative, folder + "/" + relative)] {
                    var object = seed
                    Self.set(&object, key, kind == .command ? [.string(written), "--flag"] : .string(written))
                    var section = ConfigSection(object, context: name, folder: folder)
                    try read(&section)
                    #expect(section.resolvedPaths[key] == expected, "\(name): \(key) = \(written)")
                }
            }
        }
        // The walk found the path keys the sections have today.
        for key in ["llama: model", "llama: chatTemplateFile", "llama: promptCacheDirectory", "llama: speculative.draftModel",
                    "server: model", "server: serverPath", "server: speculative.draftModel", "stdio: command",
                    "serve: apiKeyFile", "serve: responsesDir", "serve: sessionsDir",
                    "mcpServers entry: command", "mcpServers entry: cwd"] {
            #expect(found.contains(key), "\(key) is not read as a path; found \(found.sorted())")
        }
    }

    /// The keys `read` reads as paths from `seed` and from `seed` with an empty object at each other key it reads.
    static func pathKeys(_ seed: JSONObject, folder: String, read: (inout ConfigSection) throws -> Void) throws -> [String: ConfigPath.Kind] {
        var section = ConfigSection(seed, context: "seed", folder: folder)
        try read(&section)
        var keys = section.pathKeys
        for key in section.readKeys.subtracting(seed.keys) {
            var object = seed
            object[key] = .object([:])
            var nested = ConfigSection(object, context: "seed", folder: folder)
            guard (try? read(&nested)) != nil else { continue }
            keys.merge(nested.pathKeys) { first, _ in first }
        }
        return keys
    }

    /// Sets the dotted `key` of `object` (`outer.inner` inside `outer`) to `value`.
    static func set(_ object: inout JSONObject, _ key: String, _ value: JSONValue) {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return object[key] = value }
        var inner = object[parts[0]]?.objectValue ?? [:]
        set(&inner, parts[1], value)
        object[parts[0]] = .object(inner)
    }
}
