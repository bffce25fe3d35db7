@testable import LooplAPI
import Foundation
import Loopl
import Testing

@Suite struct ResponsesStoreTests {
    static func entry(_ id: String, text: String = "hi", created: Int = 0) -> ResponsesStore.Entry {
        .init(id: id, response: ["id": .string(id), "created_at": .integer(created)], conversation: [.user(text), .assistant("ok")])
    }

    static func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("loopl-responses-\(UUID())").path
    }

    @Test func idsAreRespAndLettersAndDigitsOnly() {
        #expect(ResponsesStore.isValidId("resp_abc123XYZ"))
        for bad in ["resp_", "resp_../x", "resp_a/b", "resp_a.json", "rs_abc", "RESP_abc", "resp_ab c", "resp_é",
                    "resp_" + String(repeating: "a", count: 101), "", "../resp_a"] {
            #expect(!ResponsesStore.isValidId(bad), "\(bad)")
        }
    }

    @Test func theOldestGoBeyondTheCount() async throws {
        let store = try ResponsesStore(maxCount: 2)
        for id in ["resp_a", "resp_b", "resp_c"] { try await store.put(Self.entry(id)) }
        #expect(await store.count == 2)
        #expect(await store.get("resp_a") == nil)
        #expect(await store.get("resp_b")?.conversation == [.user("hi"), .assistant("ok")])
        #expect(await store.get("resp_c") != nil)
        #expect(await store.remove("resp_b"))
        #expect(!(await store.remove("resp_b")))
        #expect(await store.count == 1)
    }

    @Test func theOldestGoBeyondTheBytesAndAnOversizedEntryIsNotKept() async throws {
        let size = Self.entry("resp_a", text: String(repeating: "x", count: 100)).record.jsonText().utf8.count
        let store = try ResponsesStore(maxBytes: size * 2 + 10)
        for id in ["resp_a", "resp_b", "resp_c"] { try await store.put(Self.entry(id, text: String(repeating: "x", count: 100))) }
        #expect(await store.count == 2)
        #expect(await store.byteCount <= size * 2 + 10)
        #expect(await store.get("resp_a") == nil)
        try await store.put(Self.entry("resp_big", text: String(repeating: "y", count: size * 3)))
        #expect(await store.get("resp_big") == nil)
        #expect(await store.count == 2)
        try await store.put(Self.entry("resp_bad/../x"))
        #expect(await store.count == 2)
    }

    @Test func filesArePrivateAndReadBackWithinTheBounds() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkdir(folder, 0o755) == 0 && chmod(folder, 0o755) == 0)
        let store = try ResponsesStore(directory: folder, maxCount: 3)
        for (index, id) in ["resp_a", "resp_b", "resp_c"].enumerated() { try await store.put(Self.entry(id, created: index)) }
        var info = stat()
        #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(folder + "/resp_a.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
        await store.remove("resp_b")
        #expect(!FileManager.default.fileExists(atPath: folder + "/resp_b.json"))
        try "not json".write(toFile: folder + "/resp_junk.json", atomically: true, encoding: .utf8)
        try "{}".write(toFile: folder + "/notes.json", atomically: true, encoding: .utf8)
        let again = try ResponsesStore(directory: folder, maxCount: 1)
        #expect(await again.count == 1)
        #expect(await again.get("resp_c")?.conversation == [.user("hi"), .assistant("ok")])
        #expect(!FileManager.default.fileExists(atPath: folder + "/resp_a.json"), "the evicted file stayed")
    }
}
