import Foundation
import Loopl

/// Runs `loopl-test-host` (built next to the tests) in one of its modes and reads the JSON figures it prints.
enum TestHost {
    static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopl-test-host").path
    }

    /// Runs the host with `arguments` to its end; returns the JSON object on its last line.
    static func figures(_ arguments: [String]) async throws -> JSONValue {
        let host = try ChildProcess(executable: path, arguments: arguments, output: .stream)
        var text = ""
        for await chunk in host.output { text += String(decoding: chunk, as: UTF8.self) }
        let status = await host.waitForExit()
        guard status == 0, let line = text.split(separator: "\n").last,
              let value = try? JSONValue(parsing: Data(line.utf8)), value.objectValue != nil else {
            throw LooplError(.processFailed, "loopl-test-host \(arguments.joined(separator: " ")) exited \(status) and printed \(text.suffix(400).debugDescription); its log: \(host.lastLines)")
        }
        return value
    }
}
