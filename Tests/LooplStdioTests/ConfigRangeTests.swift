import Foundation
import Loopl
@testable import LooplStdio
import Testing

/// Config numbers out of range are `invalid_configuration` errors, never a trap.
@Suite struct ConfigRangeTests {
    @Test(arguments: [
        (#"{"idleTimeoutSeconds": 1e300}"#, "'idleTimeoutSeconds' must be a positive number (at most 1e9)"),
        (#"{"initializeTimeoutSeconds": 1e18}"#, "'initializeTimeoutSeconds' must be a positive number (at most 1e9)"),
        (#"{"parallel": 1e12}"#, "'parallel' must be a whole number, 0 or more (at most 2147483647)"),
        (#"{"parallel": 100000}"#, "'parallel' must be from 1 to 1024"),
        (#"{"maxQueue": 9223372036854775807}"#, "'maxQueue' must be a whole number"),
        (#"{"parallel": 2, "maxConcurrent": 3}"#, "'maxConcurrent' must be from 1 to 2 (its 'parallel')"),
        (#"{"maxConcurrent": 0}"#, "'maxConcurrent' must be from 1 to 4 (its 'parallel')"),
    ])
    func hugeNumbersAreConfigErrors(_ extra: String, _ message: String) throws {
        var backend = try #require(try JSONValue(parsing: extra).objectValue)
        backend["kind"] = "stdio"
        backend["command"] = ["python3", "worker.py"]
        let text = JSONValue.object(["default": "worker", "backends": ["worker": .object(backend)]]).jsonText()
        do {
            _ = try LooplConfig(json: text, kinds: [StdioModel.kind()])
            Issue.record("accepted: \(text)")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
