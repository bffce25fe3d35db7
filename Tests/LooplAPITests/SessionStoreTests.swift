import Foundation
import Loopl
@testable import LooplAPI
import Testing

@Suite struct SessionStoreTests {
    static func store() -> SessionStore {
        SessionStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("loopl-store-\(UUID())").path + "/sessions")
    }

    @Test func savesPrivateFilesAndListsNewestFirst() throws {
        let store = Self.store()
        try store.save("a", messages: [.user("first")], title: SessionStore.title(of: "first\nmore"), model: "llama")
        try store.save("b", messages: [.user("second"), .assistant(text: "ok", toolCalls: [])], title: "second", model: "other")
        let past = Date(timeIntervalSinceNow: -60)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: store.directory + "/a.json")
        #expect(store.list().map(\.id) == ["b", "a"])
        #expect(store.summary("a") == SessionStore.Summary(id: "a", title: "first", model: "llama", updated: Int(past.timeIntervalSince1970)))
        #expect(try store.messages("b") == [.user("second"), .assistant(text: "ok", toolCalls: [])])
        for name in ["a.json", "a.meta.json", "b.json"] {
            let mode = try FileManager.default.attributesOfItem(atPath: store.directory + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name)")
        }
        let folder = try FileManager.default.attributesOfItem(atPath: store.directory)[.posixPermissions] as? Int
        #expect(folder == 0o700)
        try store.delete("a")
        #expect(store.list().map(\.id) == ["b"])
    }

    @Test func unknownAndMalformedIdsAreClearErrors() {
        let store = Self.store()
        #expect(throws: SessionStore.notFound("gone")) { try store.messages("gone") }
        #expect(throws: SessionStore.notFound("gone")) { try store.delete("gone") }
        for id in ["", "../x", "a/b", "a.json", String(repeating: "x", count: 65)] {
            #expect(!SessionStore.isValidId(id), "\(id)")
        }
        #expect(SessionStore.isValidId(SessionStore.newId()))
    }

    @Test func theFolderDefaultsToXDGDataHome() {
        #expect(SessionStore(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).directory == "/d/loopl/sessions")
        #expect(SessionStore(environment: ["HOME": "/h"]).directory == "/h/.local/share/loopl/sessions")
    }
}

@Suite struct RunRequestTests {
    static func request(_ body: JSONValue) throws(APIError) -> RunRequest {
        try RunRequest(body: Array(body.jsonText().utf8))
    }

    @Test func readsTheRunsSettings() throws {
        let run = try Self.request(["model": "llama", "session": "s1", "tools": ["calc"], "mcp": ["time"], "toolChoice": "required",
                                    "temperature": 0, "think": "off", "maxIterations": 3, "maxTokens": 64,
                                    "messages": [["role": "system", "content": "Be brief."], ["role": "user", "content": "17*23?"]]])
        #expect(run.model == "llama" && run.session == "s1" && run.tools == ["calc"] && run.mcp == ["time"])
        #expect(run.toolChoice == .required && run.maxIterations == 3)
        #expect(run.generation.temperature == 0 && run.generation.maxTokens == 64 && run.generation.reasoning == .off)
        #expect(run.earlier == [.system("Be brief.")] && run.prompt == "17*23?")
    }

    @Test func badFieldsAreErrorsNamingThem() {
        let cases: [(JSONValue, String)] = [
            (["messages": []], "messages"),
            (["messages": [["role": "assistant", "content": "hi"]]], "messages"),
            (["messages": [["role": "user", "content": "hi"]], "session": "../x"], "session"),
            (["messages": [["role": "user", "content": "hi"]], "maxIterations": 0], "maxIterations"),
            (["messages": [["role": "user", "content": "hi"]], "think": "maybe"], "think"),
            (["messages": [["role": "user", "content": "hi"]], "tools": "calc"], "tools"),
        ]
        for (body, param) in cases {
            do {
                _ = try Self.request(body)
                Issue.record("\(body.jsonText()) was accepted")
            } catch {
                #expect(error.status == 400 && error.param == param, "\(body.jsonText()): \(error.message)")
            }
        }
    }
}
