import Foundation
import Loopl
import Testing

/// The goldens that scripts/template-goldens writes with Python's jinja2, set up as transformers sets it up.
enum TemplateGoldens {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/Templates")
    static let now = TemplateTime(year: 2026, month: 3, day: 14, hour: 9, minute: 26, second: 53)

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("templates").path)) ?? []
        return files.filter { $0.hasSuffix(".jinja") }.map { String($0.dropLast(6)) }.sorted()
    }()

    static func json(_ path: String) throws -> JSONValue {
        try JSONValue(parsing: try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    static func source(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("templates/\(name).jinja"), encoding: .utf8)
    }

    static let contexts: JSONObject = (try? json("contexts.json"))?.objectValue ?? [:]
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
        let template = try ChatTemplate(source: try TemplateGoldens.source(name))
        let goldens = try #require(try TemplateGoldens.json("goldens/\(name).json").objectValue)
        for (contextName, expected) in goldens {
            let context = try #require(TemplateGoldens.contexts[contextName]?.objectValue)
            if let output = expected["output"]?.stringValue {
                do {
                    let rendered = try template.render(context: context, now: TemplateGoldens.now)
                    #expect(rendered == output, "\(name) / \(contextName)")
                    if rendered != output, let dump = ProcessInfo.processInfo.environment["LOOPL_GOLDEN_DUMP"] {
                        // Debugging aid: diff -u dump/x.expected dump/x.rendered
                        try? output.write(toFile: "\(dump)/\(name).\(contextName).expected", atomically: true, encoding: .utf8)
                        try? rendered.write(toFile: "\(dump)/\(name).\(contextName).rendered", atomically: true, encoding: .utf8)
                    }
                } catch {
                    Issue.record("\(name) / \(contextName): unexpected error \(error)")
                }
            } else {
                let message = expected["error"]?.stringValue ?? ""
                do {
                    let rendered = try template.render(context: context, now: TemplateGoldens.now)
                    Issue.record("\(name) / \(contextName): expected error \(message), rendered \(rendered.count) characters")
                } catch let error as LooplError {
                    #expect(error.code == .templateError)
                    if expected["type"]?.stringValue == "TemplateError" {
                        #expect(error.message == message, "\(name) / \(contextName)")
                    }
                }
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
