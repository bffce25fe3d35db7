import Testing
@testable import Loopl

@Suite struct ResponseFormatGrammarTests {
    @Test func textHasNoGrammar() throws {
        #expect(try ResponseFormat.text.grammar() == nil)
    }

    @Test func jsonObjectAcceptsAnyObjectOnly() throws {
        let grammar = try #require(try ResponseFormat.jsonObject.grammar(spacing: .spacious))
        let gbnf = try GBNF(grammar.gbnf)
        #expect(gbnf.matches(#"{"a": [1, {"b": null}]}"#))
        #expect(gbnf.matches("{}"))
        #expect(!gbnf.matches("[1]"))
        #expect(!gbnf.matches(#""text""#))
    }

    @Test func jsonSchemaUsesTheConverter() throws {
        let schema: JSONValue = ["type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"]]
        #expect(try ResponseFormat.jsonSchema(schema).grammar() == (try JSONSchemaGrammar.convert(schema: schema)))
    }

    @Test func readsAndWritesOpenAIResponseFormats() throws {
        let schema: JSONValue = ["type": "object"]
        for format in [ResponseFormat.text, .jsonObject, .jsonSchema(schema)] {
            #expect(try ResponseFormat(openAIValue: format.openAIValue) == format)
        }
        #expect(try ResponseFormat(openAIValue: ["type": "json_object", "schema": schema]) == .jsonSchema(schema))
        let error = #expect(throws: LooplError.self) { try ResponseFormat(openAIValue: ["type": "yaml"]) }
        #expect(error?.code == .invalidRequest)
    }
}
