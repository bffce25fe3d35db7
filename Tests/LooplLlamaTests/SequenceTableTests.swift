import CLlama
import Loopl
@testable import LooplLlama
import Testing

/// Which KV sequence a request runs in: its conversation's, else a free one sharing its prompt,
/// else the least recently used conversation's.
@Suite struct SequenceTableTests {
    @Test func aConversationGetsItsOwnSequenceBack() throws {
        var table = SequenceTable(count: 3)
        let a = try claim(&table, "a", [1, 2, 3])
        table.entries[a].tokens = [1, 2, 3]
        table.release(a)
        let b = try claim(&table, "b", [1, 2, 3])
        #expect(b != a, "a new conversation took another's cells while free sequences were left")
        table.release(b)
        #expect(table.claim(conversation: "a", prompt: [9]) == a)
    }

    @Test func aOneOffRequestTakesTheFreeSequenceSharingMostOfItsPrompt() throws {
        var table = SequenceTable(count: 3)
        let first = try claim(&table, nil, [1, 2])
        let second = try claim(&table, nil, [5, 6])
        table.entries[first].tokens = [1, 2]
        table.entries[second].tokens = [5, 6, 7]
        table.release(first)
        table.release(second)
        #expect(table.claim(conversation: nil, prompt: [5, 6, 7, 8]) == second)
        #expect(table.claim(conversation: nil, prompt: [1, 2, 3]) == first)
    }

    @Test func theLeastRecentlyUsedConversationGivesUpItsCellsWhenNoneIsFree() throws {
        var table = SequenceTable(count: 2)
        let a = try claim(&table, "a", [1])
        let b = try claim(&table, "b", [2])
        table.release(a)
        table.release(b)
        #expect(table.claim(conversation: "c", prompt: [3]) == a)
        #expect(table.entries[a].conversation == "c")
        #expect(table.claim(conversation: "a", prompt: [1]) == b, "the one idle sequence is b's, the oldest left")
        #expect(table.claim(conversation: "d", prompt: [4]) == nil, "every sequence is busy")
    }

    private func claim(_ table: inout SequenceTable, _ conversation: String?, _ prompt: [Int32]) throws -> Int {
        let index = table.claim(conversation: conversation, prompt: prompt)
        return try #require(index, "every sequence is busy")
    }
}

/// The llama kind's `parallel` and `maxQueue` keys.
@Suite struct LlamaConfigurationTests {
    @Test func parallelAndMaxQueueAreRead() throws {
        let config = try LooplConfig(json: #"{"backends": {"a": {"kind": "llama", "parallel": 2, "maxQueue": 0}}, "default": "a"}"#,
                                     kinds: [LlamaModel.kind])
        #expect(try config.backend("a").section["parallel"] == 2)
        #expect(LlamaModel.Configuration().parallel == 4 && LlamaModel.Configuration().maxQueue == 64)
    }

    /// The inter-token budget of the decode loop: 0.2 s unless a configuration says otherwise.
    @Test func theInterTokenBudgetIsReadInSeconds() throws {
        #expect(LlamaModel.Configuration().interTokenBudget == .milliseconds(200))
        #expect(LlamaModel.Configuration(interTokenBudgetSeconds: 0.05).interTokenBudget == .milliseconds(50))
        let config = try LooplConfig(json: #"{"backends": {"a": {"kind": "llama", "interTokenBudgetSeconds": 0.05}}, "default": "a"}"#,
                                     kinds: [LlamaModel.kind])
        #expect(try config.backend("a").section["interTokenBudgetSeconds"] == 0.05)
    }

    /// Drafting takes `q8_0` keys unless told otherwise, for verify steps that round as one token does.
    @Test func cacheTypeKDefaultsToQ8ZeroWhenDrafting() {
        #expect(LlamaModel.Configuration().resolvedCacheTypeK == .f16)
        #expect(LlamaModel.Configuration(speculative: Speculation(kind: .ngram)).resolvedCacheTypeK == .q8_0)
        #expect(LlamaModel.Configuration(speculative: Speculation(kind: .ngram), cacheTypeK: .f16).resolvedCacheTypeK == .f16)
    }

    /// Flash attention is llama.cpp's choice unless the key says otherwise.
    @Test func flashAttentionIsReadFromItsKey() throws {
        #expect(LlamaModel.Configuration().flashAttention == .auto && FlashAttention.auto.llamaType == LLAMA_FLASH_ATTN_TYPE_AUTO)
        #expect(FlashAttention.on.llamaType == LLAMA_FLASH_ATTN_TYPE_ENABLED && FlashAttention.off.llamaType == LLAMA_FLASH_ATTN_TYPE_DISABLED)
        let config = try LooplConfig(json: #"{"backends": {"a": {"kind": "llama", "flashAttention": "off"}}, "default": "a"}"#,
                                     kinds: [LlamaModel.kind])
        var section = ConfigSection(try config.backend("a").section, context: "a")
        #expect(try LlamaModel.Configuration(from: &section).flashAttention == .off)
    }

    @Test(arguments: [
        (#"{"kind": "llama", "flashAttention": "yes"}"#, "'flashAttention' must be \"auto\" or \"on\" or \"off\""),
        (#"{"kind": "llama", "parallel": 0}"#, "'parallel' must be from 1 to 256"),
        (#"{"kind": "llama", "parallel": 257}"#, "'parallel' must be from 1 to 256"),
        (#"{"kind": "llama", "maxQueue": -1}"#, "'maxQueue' must be a whole number"),
        (#"{"kind": "llama", "cacheTypeK": "q4_0"}"#, "'cacheTypeK' must be \"f16\" or \"q8_0\""),
        (#"{"kind": "llama", "interTokenBudgetSeconds": 0}"#, "'interTokenBudgetSeconds' must be a positive number"),
        (#"{"kind": "llama", "interTokenBudgetSeconds": 61}"#, "'interTokenBudgetSeconds' must be from 0.001 to 60"),
    ])
    func badValuesAreClearErrors(_ section: String, _ message: String) {
        do {
            _ = try LooplConfig(json: #"{"backends": {"a": "# + section + #"}, "default": "a"}"#, kinds: [LlamaModel.kind])
            Issue.record("accepted: \(section)")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
