import Foundation
import Loopl
import Testing

/// The models `loopl serve` loads and unloads, with the two real test models: their state, the
/// load and unload endpoints, and the memory an unload frees; and an unload refused while a
/// request runs, on a worker that holds its turns.
@Suite(.serialized) struct ModelsServeTests {
    static func models(_ server: ServeProcess, _ checks: [String], extra: [String] = [],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("models_check.py", ["--port", String(server.port), "--pid", String(server.process.processIdentifier)] + extra,
                          checks: checks, sourceLocation: sourceLocation)
    }

    /// The two real test models and a file that is not a model, in a folder of links, with one
    /// model loaded at a time and the prompt cache on; `loopl ps` lists the one loaded.
    @Test(.timeLimit(.minutes(5)))
    func twoRealModelsInAFolderLoadUnloadAndGoIdleAndTheirStateShows() throws {
        try ServeTests.requireModel()
        try #require(FileManager.default.fileExists(atPath: LooplHome.secondModel), "no second test model at \(LooplHome.secondModel)")
        let folder = OpsServeTests.temporaryPath("models")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/smol.gguf", withDestinationPath: LooplHome.defaultModel)
        try FileManager.default.createSymbolicLink(atPath: folder + "/gemma.gguf", withDestinationPath: LooplHome.secondModel)
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: folder + "/bad.gguf"))
        let cache = OpsServeTests.temporaryPath("prompt-cache")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let config = try ServeProcess.config(["default": "echo", "serve": [
            "maxLoaded": 1, "modelDefaults": ["threads": 2, "contextLength": 2048, "parallel": 1,
                                              "promptCache": true, "promptCacheDirectory": .string(cache)]],
                                              "backends": ["echo": ["kind": "stdio", "command": OpsServeTests.worker()]]])
        let server = try ServeProcess(["--models-dir", folder], config: config)
        try Self.models(server, ["lifecycle", "folder", "alternate", "stream-kept", "keep-alive", "ps", "resume"],
                        extra: ["--folder", folder, "--loopl", ServeProcess.binary, "--file", "smol=" + LooplHome.defaultModel, "--file", "gemma=" + LooplHome.secondModel])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func anUnloadWaitsForTheRequestsInFlight() throws {
        let hold = OpsServeTests.temporaryPath("hold")
        defer { try? FileManager.default.removeItem(atPath: hold) }
        let config = try ServeProcess.config(["default": "held", "backends": [
            "held": ["kind": "stdio", "command": OpsServeTests.worker(["--hold", .string(hold)]), "parallel": 2],
        ]])
        let server = try ServeProcess([], config: config)
        try Self.models(server, ["unload-busy"], extra: ["--hold", hold])
        #expect(server.stop().status == 0)
    }
}
