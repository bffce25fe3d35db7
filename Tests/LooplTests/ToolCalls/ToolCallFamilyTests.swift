import Foundation
@testable import Loopl
import Testing

/// The registry of families: each listed once, and every family a template can show tested in the precedence order.
@Suite struct ToolCallFamilyTests {
    @Test func everyFamilyIsListedOnce() {
        let formats = ToolCallFamily.all.map(\.format)
        #expect(formats.count == Set(formats).count)
        #expect(!formats.contains(.auto))
    }

    @Test func everyFamilyWithTemplateSignsHasAPrecedence() {
        let ordered = ToolCallFamily.byTemplatePrecedence.map(\.format)
        #expect(ordered.count == Set(ordered).count)
        let signed = ToolCallFamily.all.filter { !$0.templateSigns.isEmpty }.map(\.format)
        #expect(Set(ordered) == Set(signed))
    }

    /// A family comes before every family whose signs its own signs contain.
    @Test func aFamilyIsInferredFromItsOwnSigns() {
        for family in ToolCallFamily.byTemplatePrecedence {
            for group in family.templateSigns {
                #expect(ToolCallFormat(inferringFromTemplate: group.joined(separator: " ")) == family.format, "\(group)")
            }
        }
    }

    /// The families whose templates are not in llama.cpp's tree are inferred from the real
    /// published templates in Data/Templates/outside: OLMo 3's and Granite 20B FC's, both from
    /// vLLM's examples (outside/origins.json). Step 3 and LongCat publish theirs only in their model
    /// repositories on Hugging Face, which no fixture holds yet; their signs stay tested by
    /// ``aFamilyIsInferredFromItsOwnSigns()`` alone.
    @Test(arguments: [("vllm-tool_chat_template_olmo3", ToolCallFormat.olmo3),
                      ("vllm-tool_chat_template_granite_20b_fc", ToolCallFormat.granite20BFC)])
    func aFamilyIsInferredFromItsPublishedTemplate(name: String, format: ToolCallFormat) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/Templates/outside/templates/\(name).jinja")
        let template = try String(contentsOf: path, encoding: .utf8)
        #expect(ToolCallFormat(inferringFromTemplate: template) == format)
    }
}
