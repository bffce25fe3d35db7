import Foundation
@testable import LooplAPI
import Loopl
import Testing

/// The `serve` config object and where the API key comes from.
@Suite struct ServeSettingsTests {
    static func keyFile(_ text: String, mode: mode_t) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-key-\(UUID())").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
        return path
    }

    @Test func keysAreReadFlagFirstThenEnvironmentThenFile() throws {
        let path = try Self.keyFile("from-file\nsecond line\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var settings = try ServeSettings(section: ["apiKeyFile": .string(path)])
        let fromFlag = try settings.apiKey(flag: "from-flag", environment: ["LOOPL_API_KEY": "from-env"])
        #expect(fromFlag?.accepts(authorization: "Bearer from-flag", xAPIKey: nil) == true)
        let fromEnvironment = try settings.apiKey(flag: nil, environment: ["LOOPL_API_KEY": "from-env"])
        #expect(fromEnvironment?.accepts(authorization: nil, xAPIKey: "from-env") == true)
        let fromFile = try settings.apiKey(flag: nil, environment: [:])
        #expect(fromFile?.accepts(authorization: "Bearer from-file", xAPIKey: nil) == true)
        #expect(fromFile?.accepts(authorization: "Bearer second line", xAPIKey: nil) == false)
        settings.apiKeyFile = nil
        #expect(try settings.apiKey(flag: nil, environment: [:]) == nil)
    }

    @Test(arguments: [0o644, 0o640, 0o604] as [mode_t])
    func aKeyFileOthersCanReadIsRefused(mode: mode_t) throws {
        let path = try Self.keyFile("secret\n", mode: mode)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try ServeSettings(section: ["apiKeyFile": .string(path)])
        let error = #expect(throws: LooplError.self) { try settings.apiKey(flag: nil, environment: [:]) }
        #expect(error?.message.contains("chmod 600") == true, "\(String(describing: error))")
    }

    @Test func wrongKeysAndValuesAreConfigurationErrors() {
        #expect(throws: LooplError.self) { try ServeSettings(section: ["maxRequestByte": 5]) }
        #expect(throws: LooplError.self) { try ServeSettings(section: ["maxRequestBytes": 10]) }
        #expect(throws: LooplError.self) { try ServeSettings(section: ["shutdownGraceSeconds": 1e300]) }
        #expect(throws: LooplError.self) { try ServeSettings(section: ["keepAliveSeconds": "15"]) }
    }

    @Test func valuesAreRead() throws {
        let settings = try ServeSettings(section: ["maxRequestBytes": 2048, "shutdownGraceSeconds": 2.5, "keepAliveSeconds": 1])
        #expect(settings.maxRequestBytes == 2048)
        #expect(settings.shutdownGrace == .milliseconds(2500))
        #expect(settings.keepAliveInterval == .seconds(1))
        #expect(try ServeSettings(section: [:]).maxRequestBytes == 16 * 1024 * 1024)
    }
}

/// `serve.approvalTimeoutSeconds`: how long an agent run's call waits for approval.
@Suite struct ServeApprovalSettingsTests {
    @Test func theApprovalTimeoutIsReadAndBounded() throws {
        #expect(ServeSettings().approvalTimeout == .seconds(300))
        #expect(ServeSettings().approval == .allow)
        #expect(try ServeSettings(section: ["approvalTimeoutSeconds": 2.5]).approvalTimeout == .milliseconds(2500))
        let error = #expect(throws: LooplError.self) { try ServeSettings(section: ["approvalTimeoutSeconds": 100_000]) }
        #expect(error?.message == "Invalid configuration: serve: approvalTimeoutSeconds must be 1 to 86400.")
    }
}
