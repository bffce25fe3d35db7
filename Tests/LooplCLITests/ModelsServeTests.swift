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

    static func llama(_ model: String) -> JSONValue {
        ["kind": "llama", "model": .string(model), "threads": 2, "contextLength": 2048, "parallel": 1]
    }

    @Test(.timeLimit(.minutes(5)))
    func twoRealModelsLoadUnloadAndGoIdleAndTheirStateShows() throws {
        try ServeTests.requireModel()
        try #require(FileManager.default.fileExists(atPath: LooplHome.secondModel), "no second test model at \(LooplHome.secondModel)")
        let config = try ServeProcess.config(["default": "smol", "backends": [
            "smol": Self.llama(LooplHome.defaultModel), "gemma": Self.llama(LooplHome.secondModel),
        ]])
        let server = try ServeProcess([], config: config)
        try Self.models(server, ["lifecycle", "keep-alive"], extra: ["--file", "smol=" + LooplHome.defaultModel, "--file", "gemma=" + LooplHome.secondModel])
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
