import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Prompt states saved on disk by one model are loaded by another (as by another process): the
/// same answer, with only the suffix evaluated; a damaged file is skipped with a warning.
@Suite(.serialized) struct PromptCacheTests {
    /// About 200 tokens of system prompt.
    static let system = (1...10).map { "Rule \($0): answer in plain words and keep to the point of item \($0). " }.joined()

    static func messages(_ question: String, system: String = Self.system) -> [Message] {
        [.system(system), .user(question)]
    }

    static func configuration(_ directory: String, mib: Int = 1024) -> LlamaModel.Configuration {
        .init(contextLength: 1024, threads: 2, parallel: 1, promptCache: true, promptCacheMiB: mib, promptCacheDirectory: directory)
    }

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-prompt-cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// One greedy turn of `messages` on a new model over `weights` (the weights loaded when nil),
    /// which is then closed, so that its save is written.
    static func turn(_ directory: String, _ messages: [Message], weights: LlamaWeights? = nil, mib: Int = 1024) async throws
        -> (turn: ModelConformance.Turn, warnings: [String], weights: LlamaWeights)
    {
        let model = try await LlamaModel.start(configuration(directory, mib: mib), sharing: weights)
        let turn = try await ModelConformance(model: model).run("turn", messages, options: .greedy(maxTokens: 8))
        await model.close()
        return (turn, model.promptCacheWarnings, model.weights)
    }

    static func files(_ directory: String) -> [String] {
        PromptCacheListing.entries(in: directory).map { directory + "/" + $0.name }
    }

    @Test(.timeLimit(.minutes(5)))
    func aSecondModelLoadsTheSavedPromptAndAnswersTheSame() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await Self.turn(directory, Self.messages("What is the capital of France?"))
        let firstMetrics = try #require(first.turn.metrics.last)
        #expect(firstMetrics.cachedPromptTokens == 0)
        let file = try #require(Self.files(directory).first, "the evaluated prompt was not saved")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try await Self.turn(directory, Self.messages("What is the capital of France?"), weights: first.weights)
        let metrics = try #require(second.turn.metrics.last)
        #expect(metrics.cachedPromptTokens == metrics.promptTokens - 1, "the second model evaluated more than the last token: \(metrics)")
        #expect(second.turn.text == first.turn.text, "the loaded state answers otherwise")
        #expect(second.warnings.isEmpty)
        // Another question with the same system prompt loads the saved one's system prompt.
        let other = try await Self.turn(directory, Self.messages("Name a colour of the sky."), weights: first.weights)
        let otherMetrics = try #require(other.turn.metrics.last)
        #expect(otherMetrics.cachedPromptTokens > 180 && otherMetrics.cachedPromptTokens < otherMetrics.promptTokens - 5, "\(otherMetrics)")
        var uncached = Self.configuration(directory)
        uncached.promptCache = false
        // The same prefix held in the model's own cells, so that the rest is evaluated in the same chunk.
        let reference = ModelConformance(model: try await LlamaModel.start(uncached, sharing: first.weights))
        _ = try await reference.run("first", Self.messages("What is the capital of France?"), options: .greedy(maxTokens: 8))
        let expected = try await reference.run("reference", Self.messages("Name a colour of the sky."), options: .greedy(maxTokens: 8))
        #expect(other.turn.text == expected.text, "the saved system prompt answers the other question otherwise")
        #expect(Self.files(directory).count == 1, "a prompt that adds a question only was saved again")
    }

    @Test(.timeLimit(.minutes(5)))
    func aTruncatedCorruptOrForeignFileIsSkippedWithAWarning() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let messages = Self.messages("What is the capital of France?")
        let first = try await Self.turn(directory, messages)
        let file = try #require(Self.files(directory).first)
        let saved = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let header = try PromptCacheFile.header(saved, fileSize: saved.count)
        var flipped = saved
        flipped[saved.count / 2] ^= 0x10
        let state = Array(saved[header.stateOffset...])
        let damaged = [("truncated", Array(saved.prefix(saved.count - 1000))), ("flipped byte", flipped),
                       ("another model's", PromptCacheFile.encode(key: header.key.replacingOccurrences(of: "ctx=", with: "ctx=9"),
                                                                  tokens: header.tokens, state: state))]
        for (kind, bytes) in damaged {
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let again = try await Self.turn(directory, messages, weights: first.weights)
            let metrics = try #require(again.turn.metrics.last)
            #expect(again.warnings.contains { $0.contains("skipped") }, "no warning for a \(kind) file: \(again.warnings)")
            #expect(metrics.cachedPromptTokens == 0, "a \(kind) file was loaded: \(metrics)")
            #expect(again.turn.text == first.turn.text, "a \(kind) file changed the answer")
        }
    }

    /// A file larger than the cache's bound is not read into memory: it is skipped with a warning.
    @Test(.timeLimit(.minutes(5)))
    func aFileLargerThanTheBoundIsNotRead() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let messages = Self.messages("What is the capital of France?")
        let first = try await Self.turn(directory, messages)
        let size = try #require(PromptCacheListing.entries(in: directory).first).size
        try #require(size > 1 << 20, "one saved prompt takes \(size) bytes, which does not exceed a bound of 1 MiB")
        let again = try await Self.turn(directory, messages, weights: first.weights, mib: 1)
        #expect(again.warnings.contains { $0.contains("larger than the cache's bound") }, "\(again.warnings)")
        #expect(again.turn.metrics.last?.cachedPromptTokens == 0)
        #expect(again.turn.text == first.turn.text)
    }

    @Test(.timeLimit(.minutes(5)))
    func theCacheStaysWithinItsBound() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await Self.turn(directory, Self.messages("Hi.", system: "First. " + Self.system), mib: 6)
        let size = try #require(PromptCacheListing.entries(in: directory).first).size
        try #require(size > 3 << 20 && size < 6 << 20, "one saved prompt takes \(size) bytes, which does not test a bound of 6 MiB")
        _ = try await Self.turn(directory, Self.messages("Hi.", system: "Second. " + Self.system), weights: first.weights, mib: 6)
        let entries = PromptCacheListing.entries(in: directory)
        #expect(entries.map(\.size).reduce(0, +) <= 6 << 20, "\(entries)")
        #expect(entries.count == 1)
    }
}
