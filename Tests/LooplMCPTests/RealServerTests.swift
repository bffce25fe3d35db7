import Foundation
import Loopl
import LooplMCP
import Testing

/// mcp-server-time and mcp-server-git from PyPI, as scripts/mcp-servers installs them.
@Suite struct RealServerTests {
    /// Where scripts/mcp-servers put the servers' commands.
    static var bin: String {
        let environment = ProcessInfo.processInfo.environment
        if let bin = environment["LOOPL_MCP_BIN"] { return bin }
        let home = environment["LOOPL_HOME"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache/loopl")
        return home + "/mcp-servers/bin"
    }

    static func server(_ name: String) throws -> String {
        let path = bin + "/" + name
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing: run scripts/mcp-servers")
        return path
    }

    /// An ISO 8601 date and time with its offset, with or without fractional seconds.
    static func instant(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return plain.date(from: text) ?? fractional.date(from: text)
    }

    @Test func theTimeServerTellsTheTime() async throws {
        let client = MCPClient(config: MCPServerConfig(name: "time", command: try Self.server("mcp-server-time"),
                                                       arguments: ["--local-timezone", "UTC"]))
        let text = try await client.call("get_current_time", arguments: ["timezone": "Europe/Paris"])
        await client.shutdown()
        let answer = try JSONValue(parsing: text)
        #expect(answer["timezone"] == "Europe/Paris")
        // The instant it names (with Paris's offset) is now, whatever the year is there or here.
        let told = try #require(answer["datetime"]?.stringValue.flatMap(Self.instant), "\(text)")
        #expect(abs(told.timeIntervalSinceNow) < 120, "\(text)")
        #expect(await client.revision != nil)
    }

    @Test func theGitServerReadsARepositorysLog() async throws {
        let repo = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-mcp-git-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: repo) }
        for command in [["init", "-q", repo], ["-C", repo, "-c", "user.name=Test", "-c", "user.email=test@example.com",
                                                 "commit", "-q", "--allow-empty", "-m", "The very first commit"]] {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            git.arguments = command
            try git.run()
            git.waitUntilExit()
            try #require(git.terminationStatus == 0, "git \(command.joined(separator: " ")) failed")
        }
        let client = MCPClient(config: MCPServerConfig(name: "git", command: try Self.server("mcp-server-git"),
                                                       arguments: ["--repository", repo], only: ["git_log"]))
        let log = try await client.call("git_log", arguments: ["repo_path": .string(repo)])
        await client.shutdown()
        #expect(log.contains("The very first commit"), "\(log)")
        #expect(client.catalog.tools.map(\.name) == ["git_log"])
    }
}
