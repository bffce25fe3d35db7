import Foundation
import Testing

/// A Python MCP server over HTTP from Tests/Data/MCP, run with the MCP servers' virtual
/// environment: it prints "PORT <n>" once it listens, and is killed by ``stop()``.
final class HTTPTestServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let errors = Pipe()

    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/MCP/\(name)").path
    }

    /// Starts `script` with `arguments`; waits for its port.
    init(_ script: String, _ arguments: [String]) throws {
        let python = RealServerTests.bin + "/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: run scripts/mcp-servers")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.script(script)] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == 0x0A { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            let stderr = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
            throw ServerDidNotStart(output: text + stderr)
        }
        self.port = port
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/") }

    /// Kills the server and returns what it wrote to stderr.
    @discardableResult
    func stop() -> String {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    struct ServerDidNotStart: Error { let output: String }
}
