#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import LooplTestKit
import Testing

/// The real `loopl` binary as the host: agent runs over the stdio backend.
@Suite(.serialized) struct EndToEndTests {
    /// Runs the built `loopl` in `folder`; standard error goes through a temporary file.
    static func loopl(_ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, out: String, err: String) {
        let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-e2e-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.loopl)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: errPath)
        process.environment = environmentWithFreshPromptCache()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let err = (try? String(contentsOf: errPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), err)
    }

    @Test(.timeLimit(.minutes(10)))
    func calculatorRunOverLlamaWorker() throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try Self.loopl(["run", "--config", config, "--backend", "stdio", "--tools", "calc", "--tool-choice", "required",
                                     "--temperature", "0", "--max-iterations", "3", "--max-tokens", "64", "--json", "What is 17*23?"])
        #expect(result.status == 0, "stderr: \(result.err)")
        let events = try result.out.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let results = events.filter { $0["event"] == "toolFinished" }.compactMap { $0["result"] }
        let first = try #require(results.first, "no tool ran: \(result.out.prefix(500))")
        #expect(first["name"] == "calculator" && first["isError"] == false && first["content"] == "391", "\(first)")
        #expect(events.last?["event"] == "finished")
    }

    @Test(.timeLimit(.minutes(1)))
    func scriptedPythonWorkerRunsTheCalculator() throws {
        let result = try Self.loopl(["run", "--config", "backends/stdio-python.json", "--tools", "calc", "--json", "What is 17*23?"],
                                    in: Fixtures.packageRoot)
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains(#""content":"391""#), "\(result.out)")
    }

    @Test func workerRefusesToServeAStdioBackend() throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try Self.loopl(["worker", "--config", config, "--backend", "stdio"])
        #expect(result.status == 1)
        #expect(result.err.contains("is itself a stdio worker"), "\(result.err)")
    }
}
#endif
