import Foundation
@testable import Loopl
import Testing

/// A configuration file's relative paths mean the same wherever Loopl runs: they are relative
/// to the file's folder. A bare command is looked up on PATH only, never in the current folder.
@Suite struct ConfigPathsTests {
    /// A kind that takes the path keys as they come.
    static let pathsKind = BackendKind(name: "paths", read: { section in
        for key in ["model", "chatTemplateFile", "binary", "command"] { section.accept(key) }
        return 0
    }, start: { _ in throw LooplError(.modelNotFound, "not started") })

    static let text = """
        {"default": "p", "backends": {"p": {"kind": "paths", "model": "models/m.gguf", "chatTemplateFile": "t.jinja",
          "binary": "bin/llama-server", "command": ["./worker.py", "--flag", "rel/arg"]},
          "q": {"kind": "paths", "model": "/abs/m.gguf", "command": ["python3", "w.py"]}},
         "mcpServers": {"here": {"command": "./server.sh"}, "there": {"command": "./s.sh", "cwd": "tools"},
           "bare": {"command": "npx"}, "home": {"command": "~/bin/s"}},
         "serve": {"apiKeyFile": "key.txt", "responsesDir": "/var/r"}}
        """

    @Test func relativePathsAreTheConfigFilesFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-paths-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/conf", withIntermediateDirectories: true)
        let file = root + "/conf/loopl.json"
        try Self.text.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o600)
        let folder = try #require(realpath(root + "/conf", nil).map { String(cString: $0) })
        // Read from another folder than the file's.
        let config = try LooplConfig.load(explicit: file, kinds: [Self.pathsKind], environment: ["HOME": root], folder: "/")
        let p = try config.backend("p").section
        #expect(p["model"] == .string(folder + "/models/m.gguf"))
        #expect(p["chatTemplateFile"] == .string(folder + "/t.jinja"))
        #expect(p["binary"] == .string(folder + "/bin/llama-server"))
        #expect(p["command"] == [.string(folder + "/worker.py"), "--flag", "rel/arg"])
        let q = try config.backend("q").section
        #expect(q["model"] == "/abs/m.gguf")
        #expect(q["command"] == ["python3", "w.py"])
        #expect(config.mcpServers["here"]?["command"] == .string(folder + "/server.sh"))
        #expect(config.mcpServers["there"]?["command"] == "./s.sh")
        #expect(config.mcpServers["there"]?["cwd"] == .string(folder + "/tools"))
        #expect(config.mcpServers["bare"]?["command"] == "npx")
        #expect(config.mcpServers["home"]?["command"] == "~/bin/s")
        #expect(config.serve["apiKeyFile"] == .string(folder + "/key.txt"))
        #expect(config.serve["responsesDir"] == "/var/r")
    }

    /// An executable planted in the current folder under a command's name never runs in its place,
    /// even with `.` or an empty entry on PATH.
    @Test func aBareCommandIsNeverLookedUpInTheCurrentFolder() throws {
        let name = "loopl-planted-\(UUID().uuidString.prefix(8))"
        let here = FileManager.default.currentDirectoryPath
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).ran").path
        let planted = here + "/" + name
        try "#!/bin/sh\ntouch \(marker)\n".write(toFile: planted, atomically: false, encoding: .utf8)
        chmod(planted, 0o755)
        defer {
            try? FileManager.default.removeItem(atPath: planted)
            try? FileManager.default.removeItem(atPath: marker)
        }
        for path in ["/nonexistent", "/nonexistent:.", "/nonexistent::/also-missing", ":/nonexistent"] {
            #expect {
                let child = try ChildProcess(executable: try ChildProcess.executable(name, searchPath: path), arguments: [])
                _ = child.exitStatus
            } throws: { error in
                (error as? LooplError)?.message.contains("no executable of that name on PATH (the current folder is not searched)") == true
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!FileManager.default.fileExists(atPath: marker), "the planted ./\(name) ran")
        // On PATH it is found.
        #expect(try ChildProcess.executable("sh", searchPath: "/nonexistent:/bin") == "/bin/sh")
    }
}
