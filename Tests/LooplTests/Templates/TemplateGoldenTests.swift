import Foundation
import Loopl
import Testing

/// The goldens that scripts/template-goldens writes with Python's jinja2, set up as transformers sets it up:
/// llama.cpp's templates in Data/Templates, other runtimes' and model repositories' in Data/Templates/outside.
enum TemplateGoldens {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/Templates")
    static let outside = directory.appendingPathComponent("outside")
    static let now = TemplateTime(year: 2026, month: 3, day: 14, hour: 9, minute: 26, second: 53)

    static let names = names(in: directory)

    /// The templates in `base`/templates, without `.jinja`.
    static func names(in base: URL) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent("templates").path)) ?? []
        return files.filter { $0.hasSuffix(".jinja") }.map { String($0.dropLast(6)) }.sorted()
    }

    static func json(_ path: String, in base: URL = directory) throws -> JSONValue {
        try JSONValue(parsing: try Data(contentsOf: base.appendingPathComponent(path)))
    }

    static func source(_ name: String, in base: URL = directory) throws -> String {
        try String(contentsOf: base.appendingPathComponent("templates/\(name).jinja"), encoding: .utf8)
    }

    static let contexts: JSONObject = (try? json("contexts.json"))?.objectValue ?? [:]

    /// How rendering the template with the conversation `contextName` differs from what jinja2 gave
    /// (an output, or an error: then Loopl must fail too, with the same `raise_exception` message); nil when it does not.
    static func mismatch(_ template: Result<ChatTemplate, any Error>, _ contextName: String, expected: JSONValue) -> String? {
        guard let context = contexts[contextName]?.objectValue else { return "no conversation \(contextName)" }
        let rendered = Result { try template.get().render(context: context, now: now) }
        switch (rendered, expected["output"]?.stringValue) {
        case (.success(let text), let output?):
            if text == output { return nil }
            let same = zip(text, output).prefix { $0 == $1 }.count
            return "differs after \(same) characters: \(String(reflecting: String(text.dropFirst(same).prefix(60)))), "
                + "jinja2: \(String(reflecting: String(output.dropFirst(same).prefix(60))))"
        case (.failure(let error), _?):
            return "unexpected error \(error)"
        case (.success(let text), nil):
            return "expected error \(expected["error"]?.stringValue ?? ""), rendered \(text.count) characters"
        case (.failure(let error), nil):
            guard let error = error as? LooplError, error.code == .templateError else { return "unexpected error \(error)" }
            let message = expected["error"]?.stringValue ?? ""
            if expected["type"]?.stringValue == "TemplateError", error.message != message {
                return "raised \(String(reflecting: error.message)), jinja2 raised \(String(reflecting: message))"
            }
            return nil
        }
    }
}

@Suite struct TemplateGoldenTests {
    /// `render(messages:)` gives templates the variables transformers gives them.
    @Test(arguments: TemplateGoldens.names)
    func messagesAPIMatchesGoldens(_ name: String) throws {
        let template = try ChatTemplate(source: try TemplateGoldens.source(name))
        let goldens = try #require(try TemplateGoldens.json("goldens/\(name).json").objectValue)
        let conversations: [(String, [Message])] = [
            ("plain", [.user("Hello!")]),
            ("system", [.system("You are a helpful assistant."), .user("What is 2 + 2?")]),
            ("multi_turn", [.system("You are a helpful assistant."), .user("Hi."), .assistant("Hello! How can I help?"),
                            .user("Tell me a joke.")]),
        ]
        for (contextName, messages) in conversations {
            let expected = goldens[contextName]?["output"]?.stringValue
            let rendered = try? template.render(messages: messages, bosToken: "<|bos|>", eosToken: "<|eos|>",
                                                now: TemplateGoldens.now)
            #expect(rendered == expected, "\(name) / \(contextName)")
        }
    }

    @Test func goldensExist() {
        #expect(TemplateGoldens.names.count >= 70)
        #expect(TemplateGoldens.contexts.count >= 10)
    }

    @Test(arguments: TemplateGoldens.names)
    func rendersAsJinja2(_ name: String) throws {
        let template = Result { try ChatTemplate(source: try TemplateGoldens.source(name)) }
        let goldens = try #require(try TemplateGoldens.json("goldens/\(name).json").objectValue)
        for (contextName, expected) in goldens {
            if let mismatch = TemplateGoldens.mismatch(template, contextName, expected: expected) {
                Issue.record("\(name) / \(contextName): \(mismatch)")
            }
        }
    }
}

/// One small template per feature, rendered by jinja2 into snippets.json.
@Suite struct TemplateSnippetTests {
    static let file: JSONValue = (try? TemplateGoldens.json("snippets.json")) ?? .null
    static let names: [String] = file["snippets"]?.objectValue?.keys ?? []

    @Test func snippetsExist() { #expect(Self.names.count >= 50) }

    @Test(arguments: names)
    func rendersAsJinja2(_ name: String) throws {
        let snippet = try #require(Self.file["snippets"]?[name])
        let context = try #require(Self.file["context"]?.objectValue)
        let source = try #require(snippet["template"]?.stringValue)
        do {
            let rendered = try ChatTemplate(source: source).render(context: context, now: TemplateGoldens.now)
            if let output = snippet["output"]?.stringValue {
                #expect(rendered == output)
            } else {
                Issue.record("expected \(snippet["type"]?.stringValue ?? ""): \(snippet["error"]?.stringValue ?? ""), rendered \(rendered)")
            }
        } catch let error as LooplError {
            #expect(snippet["output"] == nil, "unexpected error \(error)")
            #expect(error.code == .templateError)
            if snippet["type"]?.stringValue == "TemplateError" { #expect(error.message == snippet["error"]?.stringValue) }
        }
    }
}

/// Generated expressions over a pool of values (expressions.json): Python's value semantics.
@Suite struct TemplateExpressionTests {
    @Test func expressionsRenderAsJinja2() throws {
        let cases = try #require(try TemplateGoldens.json("expressions.json").arrayValue)
        #expect(cases.count > 4000)
        // Python's integers have no size limit; Loopl's stop at 64 bits and say so.
        let knownDifferences: Set<String> = ["{{ 1e100 | int }}", "{{ 1e100 | int(7) }}"]
        var mismatches: [String] = []
        for item in cases {
            let source = item["template"]?.stringValue ?? ""
            if knownDifferences.contains(source) {
                #expect(throws: LooplError.self) { try ChatTemplate(source: source).render(context: [:]) }
                continue
            }
            let rendered: String?
            do { rendered = try ChatTemplate(source: source).render(context: [:]) } catch { rendered = nil }
            switch (rendered, item["output"]?.stringValue) {
            case (let mine?, let expected?) where mine == expected: continue
            case (nil, nil): continue
            case (let mine, let expected):
                mismatches.append("\(source) → \(mine.map { "\"\($0)\"" } ?? "error"), jinja2: \(expected.map { "\"\($0)\"" } ?? "error \(item["error"]?.stringValue ?? "")")")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(cases.count):\n\(mismatches.prefix(200).joined(separator: "\n"))")
    }
}
