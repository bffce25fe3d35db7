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
}
