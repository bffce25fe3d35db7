import Foundation
@testable import LooplAPI
import Loopl
import Testing

/// The models folder of `loopl serve`: which files are models and by what name, a bad file listed
/// with its reason, a name a backend holds refused at start, and files that come and go.
@Suite struct ModelFolderTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-models-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: true)
        return path
    }

    static func link(_ folder: String, _ name: String) throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: LooplHome.defaultModel)
    }

    @Test func filesAreNamedByStemAndASplitModelByItsFirstShard() {
        #expect(ModelFolder.modelName(of: "qwen3-8b-Q4_K_M.gguf") == "qwen3-8b-Q4_K_M")
        #expect(ModelFolder.modelName(of: "big-00001-of-00003.gguf") == "big")
        #expect(ModelFolder.modelName(of: "big-00002-of-00003.gguf") == nil)
        #expect(ModelFolder.modelName(of: "notes.txt") == nil && ModelFolder.modelName(of: ".hidden.gguf") == nil)
    }

    @Test func aBadFileIsListedWithItsReasonAndSubfoldersAreNotRead() throws {
        try #require(FileManager.default.fileExists(atPath: LooplHome.defaultModel), "run scripts/bootstrap first")
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.link(folder, "small.gguf")
        try Self.link(folder, "sub/deep.gguf")
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: folder + "/junk.gguf"))
        try Data("GGUF\u{3}\0\0\0".utf8).write(to: URL(fileURLWithPath: folder + "/cut.gguf"))
        let entries = ModelFolder(path: folder).scan()
        #expect(entries.map(\.name) == ["cut", "junk", "small"])
        #expect(entries.first { $0.name == "small" }?.problem == nil)
        #expect(entries.first { $0.name == "junk" }?.problem?.contains("not a GGUF") == true)
        #expect(entries.first { $0.name == "cut" }?.problem != nil)
    }

    @Test func filesComeAndGoAndAClashWithABackendIsAnErrorAtStart() async throws {
        try #require(FileManager.default.fileExists(atPath: LooplHome.defaultModel), "run scripts/bootstrap first")
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.link(folder, "small.gguf")
        try Data("nope".utf8).write(to: URL(fileURLWithPath: folder + "/junk.gguf"))
        let config = try LooplConfig(json: #"{"default": "a", "backends": {"a": {"kind": "test", "aliases": ["alias"]}}}"#,
                                     kinds: [ModelDirectoryTests.failingKind(nil), BackendKind(name: "llama", read: { try $0.optionalPath("model") }, start: { _ in
                                         throw LooplError(.invalidModel, "not loaded here")
                                     })])
        let directory = try ModelDirectory(config: config, folder: ModelFolder(path: folder))
        #expect(directory.names.ids == ["a", "junk", "small", "alias"])
        #expect(directory.kind(of: "small") == "llama" && directory.keepAlive(of: "small") == .fiveMinutes)
        if case .failed(let reason) = await directory.state(of: "junk") { #expect(reason.contains("not a GGUF")) } else {
            Issue.record("a bad file is not failed: \(await directory.state(of: "junk"))")
        }
        #expect(await directory.state(of: "small") == .unloaded)
        try FileManager.default.removeItem(atPath: folder + "/junk.gguf")
        try Self.link(folder, "other.gguf")
        await directory.rescan()
        #expect(directory.names.ids == ["a", "other", "small", "alias"])
        try Self.link(folder, "alias.gguf")
        let clash = #expect(throws: LooplError.self) { try ModelDirectory(config: config, folder: ModelFolder(path: folder)) }
        #expect(clash?.message.contains("alias.gguf") == true && clash?.message.contains("backend 'a'") == true)
    }
}
