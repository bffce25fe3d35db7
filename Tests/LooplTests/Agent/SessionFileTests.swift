import Foundation
import Loopl
import Testing

/// Saving and loading conversations.
@Suite struct SessionFileTests {
    @Test func savesRoundTripAndClearTheTemporariesOfKilledSaves() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-session-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.json").path
        // What a save killed mid-write leaves: its process (a pid above any pid_max) is gone.
        try "[{\"role\": ".write(toFile: path + ".tmp-4194305", atomically: false, encoding: .utf8)
        let live = path + ".tmp-\(getppid())"
        try "".write(toFile: live, atomically: false, encoding: .utf8)
        let messages: [Message] = [.user("hi"), .assistant("hello")]
        try SessionFile.save(messages, to: path)
        #expect(try SessionFile.load(path) == messages)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["s.json", "s.json.tmp-\(getppid())"], "a live process's temporary file stays")
    }
}
