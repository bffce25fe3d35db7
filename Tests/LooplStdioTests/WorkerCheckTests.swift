#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import Testing

/// `loopl worker-check` passes good workers and fails the Python worker in each bad mode.
@Suite(.serialized) struct WorkerCheckTests {
    /// Runs the built `loopl` with `arguments`; returns its exit status and standard output.
    static func loopl(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.loopl)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.timeLimit(.minutes(1)), arguments: [[], ["--notify"]])
    func pythonWorkerPasses(_ flags: [String]) throws {
        let result = try Self.loopl(["worker-check", "--idle-timeout", "5", "--"] + Fixtures.python(flags))
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.hasSuffix("6 passed, 0 failed\n"), "\(result.out)")
        #expect(result.out.split(separator: "\n").filter { $0.hasPrefix("pass  ") }.count == 6)
    }

    @Test(.timeLimit(.minutes(2)), arguments: [
        "exit-at-start", "crash", "non-json", "non-jsonrpc", "unknown-id", "response-to-nothing",
        "long-line", "after-result", "non-utf8", "stall",
    ])
    func pythonWorkerFailsInEachBadMode(_ fault: String) throws {
        let result = try Self.loopl(["worker-check", "--idle-timeout", "3", "--"] + Fixtures.python(["--fault", fault]))
        #expect(result.status == 1, "\(result.out)")
        let last = result.out.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasSuffix(" failed") && !last.hasSuffix(" 0 failed"), "\(result.out)")
    }

    @Test(.timeLimit(.minutes(5)))
    func llamaWorkerPasses() throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try Self.loopl(["worker-check", "--", Fixtures.loopl, "worker", "--backend", "llama", "--config", config])
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.hasSuffix("6 passed, 0 failed\n"), "\(result.out)")
    }

    @Test func usageErrors() throws {
        let missing = try Self.loopl(["worker-check"])
        #expect(missing.status == 2)
    }
}
#endif
