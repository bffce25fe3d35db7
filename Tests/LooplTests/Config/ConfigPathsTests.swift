import Foundation
@testable import Loopl
import Testing

/// A configuration file's relative paths mean the same wherever Loopl runs: they are relative
/// to the file's folder. A bare command is looked up on PATH only, never in the current folder.
@Suite struct ConfigPathsTests {
    /// A kind whose section holds a path, a program and a command line.
    static let pathsKind = BackendKind(name: "paths", read: { section in
        [try section.optionalPath("model"), try section.optionalProgram("serverPath"),
         try section.optionalCommand("command")?.joined(separator: " ")]
    }, start: { _ in throw LooplError(.modelNotFound, "not started") })

    @Test func relativePathsAreTheConfigFilesFoldersAndTildeIsHome() throws {
        let home = "/home/u"
        #expect(ConfigPath.resolve("models/m.gguf", kind: .path, folder: "/conf", home: home) == "/conf/models/m.gguf")
        #expect(ConfigPath.resolve("./././m.gguf", kind: .path, folder: "/conf", home: home) == "/conf/m.gguf")
        #expect(ConfigPath.resolve("m.gguf", kind: .path, folder: "/", home: home) == "/m.gguf")
        #expect(ConfigPath.resolve("~/m.gguf", kind: .path, folder: "/conf", home: home) == "/home/u/m.gguf")
        #expect(ConfigPath.resolve("~", kind: .path, folder: "/conf", home: home) == "/home/u")
        #expect(ConfigPath.resolve("~/bin/s", kind: .program, folder: nil, home: home) == "/home/u/bin/s")
        #expect(ConfigPath.resolve("bin/s", kind: .program, folder: "/conf", home: home) == "/conf/bin/s")
        #expect(ConfigPath.resolve("npx", kind: .program, folder: "/conf", home: home) == "npx", "a bare name is found on PATH")
        #expect(ConfigPath.resolve("rel/m", kind: .path, folder: nil, home: home) == "rel/m", "given in code: as it is")
        // The control: absolute paths are kept as written.
        #expect(ConfigPath.resolve("/abs/m.gguf", kind: .path, folder: "/conf", home: home) == "/abs/m.gguf")
    }

    /// A key that no reader had before is a path once its section reads it as one: nothing else,
    /// the resolver least of all, names it.
    @Test func aNewPathKeyIsResolvedOnceItsSectionDeclaresIt() throws {
        let fresh = BackendKind(name: "fresh", read: { section in try section.optionalPath("draftGrammarFile") },
                                start: { _ in throw LooplError(.modelNotFound, "not started") })
        let text = #"{"default": "f", "backends": {"f": {"kind": "fresh", "draftGrammarFile": "grammars/x.gbnf"}}}"#
        let config = try LooplConfig(json: text, folder: "/conf", kinds: [fresh])
        var section = ConfigSection(try config.backend("f").section, context: "f", folder: "/conf")
        try fresh.read(&section)
        #expect(section.pathKeys == ["draftGrammarFile": .path])
        #expect(section.resolvedPaths["draftGrammarFile"] == "/conf/grammars/x.gbnf")
    }

    @Test func aNestedSectionsPathsAreTheFilesFoldersToo() throws {
        var section = ConfigSection(["inner": ["file": "a/b"]], context: "outer", folder: "/conf")
        let inner = try section.nested("inner") { try $0.optionalPath("file") }
        #expect(inner == "/conf/a/b")
        #expect(section.pathKeys == ["inner.file": .path])
        #expect(section.resolvedPaths == ["inner.file": "/conf/a/b"])
        var typo = ConfigSection(["inner": ["fiel": "a"]], context: "outer", folder: "/conf")
        #expect(throws: LooplError.self) { try typo.nested("inner") { try $0.optionalPath("file") } }
    }

    @Test func aBackendsPathsAreTheConfigFilesFoldersWhereverItIsRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-paths-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/conf", withIntermediateDirectories: true)
        let file = root + "/conf/loopl.json"
        try """
            {"default": "p", "backends": {"p": {"kind": "paths", "model": "models/m.gguf", "serverPath": "bin/llama-server",
              "command": ["./worker.py", "--flag", "rel/arg"]}, "q": {"kind": "paths", "model": "/abs/m.gguf", "command": ["python3", "w.py"]}}}
            """.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o600)
        let folder = try #require(realpath(root + "/conf", nil).map { String(cString: $0) })
        // Read from another folder than the file's.
        let config = try LooplConfig.load(explicit: file, kinds: [Self.pathsKind], environment: ["HOME": root], folder: "/")
        #expect(config.folder == folder)
        for (name, expected) in [("p", [folder + "/models/m.gguf", folder + "/bin/llama-server", folder + "/worker.py --flag rel/arg"]),
                                 ("q", ["/abs/m.gguf", nil, "python3 w.py"])] {
            let backend = try config.backend(name)
            var section = ConfigSection(backend.section, context: name, folder: config.folder)
            try Self.pathsKind.read(&section)
            #expect(section.resolvedPaths["model"] == expected[0])
            #expect(section.resolvedPaths["serverPath"] == expected[1])
            #expect(section.resolvedPaths["command"] == expected[2]?.split(separator: " ").first.map(String.init))
        }
        // A model given on the command line is the current folder's.
        var overridden = config
        try overridden.apply(BackendOverrides(model: "cli.gguf"))
        #expect(try overridden.backend("p").section["model"] == .string(FileManager.default.currentDirectoryPath + "/cli.gguf"))
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
