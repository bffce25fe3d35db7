import Foundation
import Loopl
@testable import LooplCLI
import Testing

/// What users of llama-cli and ollama reach for first: -m, --system, a prompt on standard input,
/// the sampling flags. On the scripted Python worker, so no model decodes.
@Suite struct CommandLineConventionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent("backends/stdio-python.json").path

    @Test func aMissingModelFileExitsOneNamingThePath() throws {
        for backend in ["llama", "server"] {
            let result = try ToolingCommandTests.loopl(["run", "--backend", backend, "-m", "/nonexistent/model.gguf", "hi"])
            #expect(result.status == 1, "\(backend): \(result.err)")
            #expect(result.err.contains("/nonexistent/model.gguf"), "\(backend): \(result.err)")
        }
        let directory = try ToolingCommandTests.loopl(["run", "--model", FileManager.default.temporaryDirectory.path, "hi"])
        #expect(directory.status == 1 && directory.err.contains("directory"), "\(directory.err)")
    }

    @Test func systemPromptAndAPromptOnStandardInputReachTheConversation() throws {
        let session = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-conventions-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: session) }
        let result = try ToolingCommandTests.loopl(["run", "--config", Self.python, "--tools", "calc", "--system", "Be brief.",
                                                    "--top-k", "5", "--top-p", "0.5", "--min-p", "0.1", "--repeat-penalty", "1.1",
                                                    "--session", session, "-"], input: "What is 17*23?\n")
        #expect(result.status == 0, "\(result.err)")
        let messages = try SessionFile.load(session)
        #expect(messages.first == .system("Be brief."))
        #expect(messages.dropFirst().first == .user("What is 17*23?"))
        let file = try ToolingCommandTests.temporary("From a file.", ".txt")
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try ToolingCommandTests.loopl(["run", "--config", Self.python, "--tools", "calc", "--system-file", file,
                                           "--session", session, "again"])
        #expect(try SessionFile.load(session).first == .system("From a file."), "a new system prompt replaces the session's")
    }

    @Test(arguments: [
        (["run", "--top-p", "2", "x"], "--top-p takes a number from 0 to 1"),
        (["run", "-t", "0", "x"], "--threads takes a whole number from 1"),
        (["run", "-ngl", "x", "y"], "--gpu-layers takes a whole number"),
        (["run", "--system", "a", "--system-file", "b", "x"], "not both"),
    ])
    func badValuesAreUsageErrors(_ arguments: [String], _ message: String) async {
        let result = await CapturedConsole.run(arguments)
        #expect(result.status == .usage, "\(arguments): \(result.err)")
        #expect(result.err.contains(message), "\(arguments): \(result.err)")
    }
}
