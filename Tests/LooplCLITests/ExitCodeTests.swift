import Foundation
@testable import LooplCLI
import Testing

@Suite struct ExitCodeTests {
    @Test(arguments: [
        ([String](), "Name a command"),
        (["frobnicate"], "Unknown command 'frobnicate'"),
        (["smoke", "--tokens", "0"], "--tokens takes a whole number from 1 to 256, not '0'"),
        (["smoke", "--tokens"], "--tokens needs a value"),
        (["smoke", "--bogus"], "Unknown option '--bogus'"),
        (["smoke", "extra"], "Unexpected argument 'extra'"),
    ])
    func usageErrorsExitTwo(_ arguments: [String], _ message: String) async {
        let result = await CapturedConsole.run(arguments)
        #expect(result.status == .usage)
        #expect(result.out.isEmpty)
        #expect(result.err.contains(message), "stderr: \(result.err)")
    }

    @Test func versionExitsZero() async {
        let result = await CapturedConsole.run(["--version"])
        #expect(result.status == .success)
        #expect(result.out == CLI.version + "\n")
    }

    @Test func missingModelExitsOneWithAReason() async {
        let result = await CapturedConsole.run(["smoke", "--model", "/nonexistent/model.gguf"])
        #expect(result.status == .failure)
        #expect(result.err.contains("No model file at /nonexistent/model.gguf"))
    }

    @Test func notAModelExitsOne() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-not-a-model-\(UUID()).gguf").path
        try "plain text".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = await CapturedConsole.run(["smoke", "--model", path])
        #expect(result.status == .failure)
        #expect(result.err.contains("is not a GGUF model file"))
        let directory = await CapturedConsole.run(["smoke", "--model", FileManager.default.temporaryDirectory.path])
        #expect(directory.status == .failure)
        #expect(directory.err.contains("is a directory"))
    }

    /// The real binary maps statuses the same way as the in-process runner.
    @Test func realBinaryExitStatuses() throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "no loopl binary at \(binary.path)")
        for (arguments, status) in [(["--help"], Int32(0)), (["smoke", "--model", "/nonexistent"], 1), (["nope"], 2)] {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == status, "loopl \(arguments)")
        }
    }
}
