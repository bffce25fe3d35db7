#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import Testing

/// `loopl worker-check` passes good workers and fails the Python worker in each bad mode.
@Suite(.serialized) struct WorkerCheckTests {
    /// Runs the built `loopl` with `arguments`; returns its exit status and standard output.
    static func loopl(_ arguments: [String]) throws -> (status: Int32, out: String) {
        try launch(arguments)()
    }

    /// Starts the built `loopl` with `arguments`; the function returned waits for its exit status
    /// and standard output.
    static func launch(_ arguments: [String]) throws -> () -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.loopl)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        return {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [[], ["--notify"]])
    func pythonWorkerPasses(_ flags: [String]) throws {
        let result = try Self.loopl(["worker-check", "--idle-timeout", "5", "--"] + Fixtures.python(flags))
        #expect(result.status == 0, "\(result.out)")
        // It declares no embeddings (protocol version 3), whose check is skipped.
        #expect(result.out.hasSuffix("11 passed, 0 failed, 1 skipped\n"), "\(result.out)")
        #expect(result.out.split(separator: "\n").filter { $0.hasPrefix("pass  ") }.count == 11)
        for check in ["two requests at once", "cancel one of two", "an error in one of two", "one request too many", "reasoning"] {
            #expect(result.out.contains("pass  \(check): "), "\(check): \(result.out)")
        }
    }

    /// A worker that speaks only version 1 passes version 1's checks; version 2's and 3's are skipped.
    @Test(.timeLimit(.minutes(1)))
    func version1WorkerPassesTheVersion1Checks() throws {
        let result = try Self.loopl(["worker-check", "--idle-timeout", "5", "--"] + Fixtures.python(["--protocol", "1"]))
        #expect(result.status == 0, "\(result.out)")
        #expect(result.out.contains("protocol 1,"), "\(result.out)")
        #expect(result.out.hasSuffix("6 passed, 0 failed, 6 skipped\n"), "\(result.out)")
    }

    /// A worker that streams two requests one after the other, though it declares two at once,
    /// fails the checks of several requests.
    @Test(.timeLimit(.minutes(1)))
    func aWorkerThatServesInTurnFailsTheConcurrencyChecks() throws {
        let result = try Self.loopl(["worker-check", "--idle-timeout", "5", "--"] + Fixtures.python(["--serial"]))
        #expect(result.status == 1, "\(result.out)")
        #expect(result.out.contains("FAIL  two requests at once: "), "\(result.out)")
        #expect(result.out.contains("FAIL  cancel one of two: "), "\(result.out)")
    }

    static let badModes = ["exit-at-start", "crash", "non-json", "non-jsonrpc", "unknown-id", "response-to-nothing",
                           "long-line", "after-result", "non-utf8", "stall"]

    /// Each bad mode in a `worker-check` of its own, all at once: the checks mostly wait for a
    /// worker that does not answer, and a second of silence is a stall. (Their output is a few
    /// lines each, so none blocks on its pipe while another is read.)
    @Test(.timeLimit(.minutes(2)))
    func pythonWorkerFailsInEachBadMode() throws {
        let running = try Self.badModes.map { fault in
            (fault, try Self.launch(["worker-check", "--idle-timeout", "1", "--"] + Fixtures.python(["--fault", fault])))
        }
        for (fault, wait) in running {
            let result = wait()
            #expect(result.status == 1, "\(fault): \(result.out)")
            let last = result.out.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.contains(" failed") && !last.contains(" 0 failed"), "\(fault): \(result.out)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func llamaWorkerPasses() throws {
        let config = try Fixtures.llamaConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try Self.loopl(["worker-check", "--", Fixtures.loopl, "worker", "--backend", "llama", "--config", config])
        #expect(result.status == 0, "\(result.out)")
        // Its events are parsed, so it declares reasoning and the reasoning check runs too, and
        // its model embeds, so the embeddings check runs.
        #expect(result.out.hasSuffix("12 passed, 0 failed\n"), "\(result.out)")
        #expect(result.out.contains("pass  embeddings: two unit vectors of 576 dimensions"), "\(result.out)")
    }

    @Test func usageErrors() throws {
        let missing = try Self.loopl(["worker-check"])
        #expect(missing.status == 2)
    }
}
#endif
