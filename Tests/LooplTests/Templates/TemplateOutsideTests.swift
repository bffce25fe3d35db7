import Foundation
import Loopl
import Testing

/// Chat templates from outside llama.cpp's tree (other runtimes' examples, model repositories),
/// each with its origin in outside/origins.json, rendered by jinja2 into outside/goldens.
@Suite struct TemplateOutsideTests {
    static let names = TemplateGoldens.names(in: TemplateGoldens.outside)

    @Test func everyTemplateNamesItsOrigin() throws {
        let origins = try #require(try TemplateGoldens.json("origins.json", in: TemplateGoldens.outside).objectValue)
        #expect(Self.names.count >= 30)
        #expect(Set(origins.keys) == Set(Self.names))
        for (name, origin) in origins {
            let repository = origin["repository"]?.stringValue ?? ""
            #expect(repository.contains("/") && !repository.hasSuffix("/llama.cpp"), "\(name): \(repository)")
            #expect(origin["path"]?.stringValue?.isEmpty == false, "\(name)")
            #expect(origin["commit"]?.stringValue?.count == 40, "\(name)")
        }
    }

    /// At least 99% of template × conversation pairs render byte for byte as jinja2 renders them.
    @Test func rendersAsJinja2() throws {
        var pairs = 0
        var mismatches: [String] = []
        for name in Self.names {
            let template = Result { try ChatTemplate(source: try TemplateGoldens.source(name, in: TemplateGoldens.outside)) }
            let goldens = try #require(try TemplateGoldens.json("goldens/\(name).json", in: TemplateGoldens.outside).objectValue)
            #expect(goldens.count == TemplateGoldens.contexts.count, "\(name)")
            for (contextName, expected) in goldens {
                pairs += 1
                if let mismatch = TemplateGoldens.mismatch(template, contextName, expected: expected) {
                    mismatches.append("\(name) / \(contextName): \(mismatch)")
                }
            }
        }
        let matched = pairs - mismatches.count
        let share = pairs == 0 ? 0 : Double(matched) / Double(pairs)
        print("Outside templates: \(matched) of \(pairs) template × conversation pairs render as jinja2 does "
              + "(\(String(format: "%.2f", share * 100))%)" + mismatches.map { "\n  \($0)" }.joined())
        #expect(pairs == Self.names.count * TemplateGoldens.contexts.count)
        #expect(share >= 0.99, "\(mismatches.count) of \(pairs) pairs differ:\n\(mismatches.joined(separator: "\n"))")
        // The known mismatches, by template and conversation: none. A new one fails even under 1%.
        #expect(mismatches.isEmpty, "pairs that differ from jinja2 (known: none):\n\(mismatches.joined(separator: "\n"))")
    }
}
