import Foundation
import Loopl
import LooplTestKit
import Testing

/// `loopl chat` driven through a pseudo-terminal on the real default model.
@Suite(.serialized) struct ChatTests {
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Data/CLI/pty-driver.py").standardizedFileURL.path
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl").path

    /// Runs `loopl chat ARGUMENTS` with `steps` typed in, in a fresh data folder.
    static func chat(_ steps: [(String, String, Int)], _ arguments: [String] = ["--max-tokens", "400"], home: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let json = JSONValue.array(steps.map { .array([.string($0.0), .string($0.1), .integer($0.2)]) }).jsonText()
        process.arguments = ["python3", driver, json, binary, "chat", "--temperature", "0"] + arguments
        var environment = environmentWithFreshPromptCache()
        environment["XDG_DATA_HOME"] = home
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func home() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-chat-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Each Ctrl-C is sent once the answer's text is streaming (three letters after the echoed prompt).
    @Test(.timeLimit(.minutes(10)))
    func ctrlCOnceCancelsTheTurnAndTwiceQuits() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = try Self.chat([
            ("", "› ", 60),
            ("Write a very long story about a fox in the forest.\n", "\n", 60),
            ("", "re:\\w\\w\\w", 120),
            ("^C", "cancelled", 60),
            ("", "› ", 30),
            ("Write a very long story about a bear.\n", "\n", 60),
            ("", "re:\\w\\w\\w", 120),
            ("^C", "", 1),
            ("^C", "", 60),
        ], home: home)
        #expect(out.contains("· cancelled"), "\(out)")
        #expect(out.contains("EXIT 0"), "\(out)")
        let saved = try SessionFile.load(home + "/loopl/conversation.json")
        #expect(saved.first == .user("Write a very long story about a fox in the forest."))
    }

    @Test(.timeLimit(.minutes(10)))
    func saveLoadClearBackendAndContinue() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let file = home + "/saved.json"
        let out = try Self.chat([
            ("", "› ", 60),
            ("Say hi.\n", "]", 120),
            ("/save \(file)\n", "saved 2 messages", 10),
            ("/clear\n", "new conversation", 10),
            ("/backend nope\n", "No backend named 'nope'", 10),
            ("/backend llama\n", "backend llama", 60),
            ("/load \(file)\n", "loaded 2 messages", 10),
            ("/frobnicate\n", "Unknown command", 10),
            ("/quit\n", "", 10),
        ], ["--max-tokens", "8"], home: home)
        #expect(out.contains("saved 2 messages"), "\(out)")
        #expect(out.contains("loaded 2 messages"), "\(out)")
        #expect(out.contains("EXIT 0"), "\(out)")
        let resumed = try Self.chat([("", "› ", 60), ("/quit\n", "", 10)], ["--continue"], home: home)
        #expect(resumed.contains("resumed 2 messages"), "\(resumed)")
    }
}
