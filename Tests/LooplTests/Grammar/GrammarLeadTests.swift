import Testing
import LooplTestKit
@testable import Loopl

/// The lead of a forced call's grammar: text that every output under the grammar begins with.
@Suite struct GrammarLeadTests {
    static let add = ToolSpec(name: "add", description: "Add.", parameters: ["type": "object", "required": ["a"],
                                                                             "properties": ["a": ["type": "integer"]]])

    @Test func oneForcedToolLeadsThroughItsNameAndTheArgumentsKey() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: [Self.add], format: .hermes, choice: .required, parallel: false))
        #expect(grammar.lead == "<tool_call>\n{\"name\":\"add\",\"arguments\":")
        let named = try #require(try ToolCallGrammar.make(tools: ToolCallGrammarTests.tools, format: .hermes, choice: .tool("now"), parallel: true))
        #expect(named.lead == "<tool_call>\n{\"name\":\"now\",\"arguments\":")
    }

    @Test func severalToolsLeadUpToTheName() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: ToolCallGrammarTests.tools, format: .hermes, choice: .required, parallel: false))
        #expect(grammar.lead == "<tool_call>\n{\"name\":\"")
    }

    @Test func noLeadWhereTheFirstTokenIsFree() throws {
        let lazy = try #require(try ToolCallGrammar.make(tools: [Self.add], format: .hermes, choice: .auto, parallel: false))
        #expect(lazy.lead == "")
        let thinking = try #require(try ToolCallGrammar.make(tools: [Self.add], format: .hermes, choice: .required, parallel: false,
                                                             reasoning: .optional))
        #expect(thinking.lead == "")
        let spacious = try #require(try ToolCallGrammar.make(tools: [Self.add], format: .hermes, choice: .required, parallel: false,
                                                             spacing: .spacious))
        #expect(spacious.lead == "<tool_call>\n")
    }

    /// Whatever the lead, every text the grammar allows starts with it, in every family.
    @Test(arguments: ToolCallGrammar.families)
    func everySampleOfTheGrammarStartsWithItsLead(format: ToolCallFormat) throws {
        for tools in [[Self.add], ToolCallGrammarTests.tools] {
            let grammar = try #require(try ToolCallGrammar.make(tools: tools, format: format, choice: .required, parallel: true))
            for text in try ToolCallGrammarTests.samples(grammar, count: 20) {
                #expect(text.hasPrefix(grammar.lead), "\(format.rawValue): \(grammar.lead.debugDescription) against \(text.prefix(80).debugDescription)")
            }
        }
    }

    @Test func literalsReadBackToTheirText() {
        #expect(Grammar.text(ofLiterals: #""<tool_call>\n" "[" "\x41\u00e9""#) == "<tool_call>\n[Aé")
        #expect(Grammar.text(ofLiterals: Grammar.literal("a \"quoted\"\\ line\n")) == "a \"quoted\"\\ line\n")
        #expect(Grammar.text(ofLiterals: "") == "")
        #expect(Grammar.text(ofLiterals: #""a" space"#) == nil)
        #expect(Grammar.text(ofLiterals: #"( "a" | "b" )"#) == nil)
        #expect(Grammar.text(ofLiterals: #""unclosed"#) == nil)
    }
}
