import LooplJinja
import LooplJSON
import Testing

/// The engine builds and renders on its own, without the rest of Loopl.
@Suite struct JinjaTemplateTests {
    @Test func rendersAloneWithJSONValues() throws {
        let template = try JinjaTemplate(source: "{% for m in messages %}{{ m.role }}: {{ m.content | tojson }}\n{% endfor %}")
        let context: JSONObject = ["messages": [["role": "user", "content": "hi"]]]
        #expect(try template.render(context: context) == "user: \"hi\"\n")
    }

    @Test func errorsAreTheEnginesOwn() {
        #expect(throws: JinjaError.self) { try JinjaTemplate(source: "{% if %}") }
        #expect(throws: JinjaError("boom", raised: true)) {
            try JinjaTemplate(source: "{{ raise_exception('boom') }}").render(context: [:])
        }
    }
}
