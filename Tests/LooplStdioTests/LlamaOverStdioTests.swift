#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
@testable import LooplStdio
import LooplTestKit
import Testing

/// The real model out of process: `loopl worker --backend llama` behind StdioModel.
@Suite(.serialized) struct LlamaOverStdioTests {
    @Test(.timeLimit(.minutes(10)))
    func conformance() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let model = try await StdioModel.start(StdioModel.Configuration(
            command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config],
            initializeTimeout: .seconds(60), idleTimeout: .seconds(120)))
        #expect(model.toolCallStyle == .text(.hermes))
        let pid = try #require(model.workerPID)
        try await ModelConformance(model: model).runAll()
        #expect(!ProcessWatch.isRunning(pid), "close() left the worker running")
    }

    /// The host (`loopl run --backend stdio`) is killed with SIGKILL mid-generation: its worker
    /// must be gone within 5 s.
    @Test(.timeLimit(.minutes(5)))
    func workerDiesWithItsHost() async throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let host = Process()
        host.executableURL = URL(fileURLWithPath: Fixtures.loopl)
        host.arguments = ["run", "--config", config, "--backend", "stdio", "--json", "--max-tokens", "600",
                          "--temperature", "0", "Write a very long story about a lighthouse."]
        let out = Pipe()
        host.standardOutput = out
        let err = Pipe()
        host.standardError = err
        try host.run()
        defer { if host.isRunning { kill(host.processIdentifier, SIGKILL) } }
        var seen = ""
        while !seen.contains("\"event\":\"text\"") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        #expect(seen.contains("\"event\":\"text\""), "the host printed no text: \(seen.prefix(300)) \(host.isRunning ? "" : String(decoding: err.fileHandleForReading.readDataToEndOfFile().suffix(600), as: UTF8.self)))")
        let workers = ProcessWatch.children(of: host.processIdentifier)
        try #require(workers.count == 1, "expected one worker child, found \(workers)")
        let worker = workers[0]
        #expect(ProcessWatch.isRunning(worker))
        kill(host.processIdentifier, SIGKILL)
        host.waitUntilExit()
        #expect(await ProcessWatch.waitUntilGone(worker, timeout: .seconds(5)), "the worker \(worker) outlived its host by 5 s")
        if ProcessWatch.isRunning(worker) { kill(worker, SIGKILL) }
    }

    /// A damaged model behind `loopl worker`: the worker fails to load it and exits; the host gets
    /// a typed error carrying the worker's reason, within seconds, and carries on.
    @Test(.timeLimit(.minutes(3)), arguments: [GGUFCorruption.truncatedInWeights, .layers1000, .tensorType99])
    func corruptModelThroughTheWorker(_ corruption: GGUFCorruption) async throws {
        let model = try Data(contentsOf: URL(fileURLWithPath: Fixtures.modelPath), options: .alwaysMapped)
        let directory = FileManager.default.temporaryDirectory
        let path = directory.appendingPathComponent("loopl-corrupt-\(UUID()).gguf").path
        let config = directory.appendingPathComponent("loopl-corrupt-\(UUID()).json").path
        defer { for file in [path, config] { try? FileManager.default.removeItem(atPath: file) } }
        try #require(corruption.apply(to: model)).write(to: URL(fileURLWithPath: path))
        let settings: JSONValue = ["default": "llama", "backends": [
            "llama": ["kind": "llama", "model": .string(path), "contextLength": 256, "threads": 1],
        ]]
        try settings.jsonText().write(toFile: config, atomically: true, encoding: .utf8)
        let start = ContinuousClock.now
        do {
            let worker = try await StdioModel.start(StdioModel.Configuration(
                command: [Fixtures.loopl, "worker", "--backend", "llama", "--config", config], initializeTimeout: .seconds(60)))
            await worker.close()
            Issue.record("a damaged model (\(corruption)) loaded")
        } catch let error as LooplError {
            #expect(error.code == .processFailed, "\(error.code): \(error.message)")
            #expect(error.message.contains("before answering initialize"), "\(error.message)")
            #expect(error.message.contains("could not load") || error.message.contains("is corrupt"), "\(error.message)")
        }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
#endif
