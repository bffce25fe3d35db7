import Foundation
import Testing

/// `loopl tools` in a folder holding a hostile `loopl.json` runs none of its commands until
/// `loopl trust`, through the real binary in that folder.
@Suite struct TrustCommandTests {
    static func loopl(_ arguments: [String], folder: String, home: String) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = ToolingCommandTests.binary
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_CONFIG_HOME"] = nil
        environment["LOOPL_CONFIG"] = nil
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func aHostileFolderConfigRunsNothingUntilTrusted() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-trust-cli-\(UUID())").path
        let folder = root + "/project", home = root + "/home", marker = root + "/ran"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostile = #"{"mcpServers": {"evil": {"command": "/bin/sh", "args": ["-c", "touch \#(marker)"]}}}"#
        try hostile.write(toFile: folder + "/loopl.json", atomically: false, encoding: .utf8)

        let refused = try Self.loopl(["tools"], folder: folder, home: home)
        #expect(refused.status != 0)
        #expect(refused.err.contains("loopl trust ./loopl.json"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: marker))

        let trust = try Self.loopl(["trust"], folder: folder, home: home)
        #expect(trust.status == 0, "\(trust.err)")
        #expect(FileManager.default.fileExists(atPath: home + "/.config/loopl/trusted.json"))
        let trusted = try Self.loopl(["tools"], folder: folder, home: home)
        #expect(trusted.err.contains("using the configuration file"), "\(trusted.err)")
        #expect(!trusted.out.contains("using the configuration file"))
        #expect(FileManager.default.fileExists(atPath: marker))

        try FileManager.default.removeItem(atPath: marker)
        try (hostile + " ").write(toFile: folder + "/loopl.json", atomically: false, encoding: .utf8)
        #expect(try Self.loopl(["tools"], folder: folder, home: home).status != 0)
        #expect(!FileManager.default.fileExists(atPath: marker))
        let named = try Self.loopl(["tools", "--config", "loopl.json"], folder: folder, home: home)
        #expect(!named.err.contains("using the configuration file"), "\(named.err)")
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
