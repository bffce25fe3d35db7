import Foundation
import Loopl
import Testing

/// Session files hold whole conversations: only their owner reads them, and a save writes nowhere
/// but its own folder.
@Suite struct SessionFileModeTests {
    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("loopl-session-mode-\(UUID())").path
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0o7777 }
        return info.st_mode & 0o7777
    }

    @Test(arguments: [nil, 0o600, 0o644] as [mode_t?])
    func aSaveLeavesTheFileForItsOwnerOnly(_ userMode: mode_t?) throws {
        let base = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/s.json"
        try SessionFile.save([.user("hi")], to: path)
        #expect(Self.mode(path) == 0o600)
        if let userMode { #expect(chmod(path, userMode) == 0) }
        try SessionFile.save([.user("hi"), .assistant("hello")], to: path)
        #expect(Self.mode(path) == 0o600)
        #expect(try SessionFile.load(path) == [.user("hi"), .assistant("hello")])
    }

    @Test func theFoldersASaveCreatesAreForItsOwnerOnly() throws {
        let base = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        try SessionFile.save([.user("hi")], to: base + "/a/b/s.json")
        #expect(Self.mode(base) == 0o700)
        #expect(Self.mode(base + "/a") == 0o700)
        #expect(Self.mode(base + "/a/b") == 0o700)
    }

    @Test func aFolderThatExistsKeepsItsMode() throws {
        let base = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(mkdir(base, 0o755) == 0 && chmod(base, 0o755) == 0)
        try SessionFile.save([.user("hi")], to: base + "/s.json")
        #expect(Self.mode(base) == 0o755)
    }

    /// The temporary file once had a name anyone could guess (`<file>.tmp-<pid>`): a link planted
    /// there had the save write through it. Links at that name, and at the name with any suffix
    /// a save might pick, are left as they are and their targets untouched.
    @Test func aSaveNeverWritesThroughALinkPlantedAtATemporaryName() throws {
        let base = Self.folder()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/s.json"
        let victim = base + "/victim.txt"
        try "untouched".write(toFile: victim, atomically: false, encoding: .utf8)
        let planted = [path + ".tmp-\(getpid())", path + ".tmp", path + ".tmp-0", path + "~"]
        for name in planted {
            try FileManager.default.createSymbolicLink(atPath: name, withDestinationPath: victim)
        }
        for round in 0..<20 { try SessionFile.save([.user("round \(round)")], to: path) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        for name in planted {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: name)) == victim, "\(name)")
        }
        #expect(try SessionFile.load(path) == [.user("round 19")])
        let left = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.hasPrefix("s.json.tmp-\(getpid())-") }
        #expect(left.isEmpty, "temporaries left: \(left)")
    }

    @Test func aSaveUnderAFileFailsClearly() throws {
        let base = Self.folder()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        try "x".write(toFile: base + "/file", atomically: false, encoding: .utf8)
        #expect(throws: LooplError.self) { try SessionFile.save([.user("hi")], to: base + "/file/s.json") }
    }
}
