import Foundation
import Loopl

/// A temporary folder holding a tools' root and, beside it, a secret file the root must not reach.
struct FileRootFixture {
    let base: String
    let root: String
    let secret: String

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-root-\(UUID())").path
        root = base + "/root"
        secret = base + "/secret.txt"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try "inside".write(toFile: root + "/sub/a.txt", atomically: false, encoding: .utf8)
        try "secret".write(toFile: secret, atomically: false, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }

    /// Makes `name` in the root a symbolic link to `target`.
    func link(_ name: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/" + name, withDestinationPath: target)
    }

    /// A chain of `count` links in the root, `chain-1` -> `chain-2` -> ... -> `chain-<count>` -> `target`;
    /// returns the name of the first.
    func chain(_ count: Int, to target: String, prefix: String = "chain") throws -> String {
        for index in 1...count {
            try link("\(prefix)-\(index)", to: index == count ? target : "\(prefix)-\(index + 1)")
        }
        return "\(prefix)-1"
    }

    /// The message of the `LooplError` that `body` throws, or nil when it returns.
    static func refusal(_ body: () async throws -> String) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as LooplError {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
