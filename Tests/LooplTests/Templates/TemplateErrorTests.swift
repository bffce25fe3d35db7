import Foundation
import Loopl
import LooplTestKit
import Testing

@Suite struct TemplateErrorTests {
    /// The message of the template error that `body` throws; nil when it throws nothing.
    func templateError(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as LooplError {
            #expect(error.code == .templateError)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func syntaxError(_ source: String) -> String? {
        templateError { _ = try ChatTemplate(source: source) }
    }

    func renderError(_ source: String, _ context: JSONObject = [:], limits: TemplateLimits = TemplateLimits()) -> String? {
        templateError { _ = try ChatTemplate(source: source, limits: limits).render(context: context) }
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        #expect(syntaxError("{% if x %}\n  {{ x + }}\n{% endif %}")
                == "Template syntax error at line 2, column 10: unexpected end of expression '}}'.")
        #expect(syntaxError("a\n{% for x in y %}{{ x }}") == "Template syntax error at line 2, column 24: unexpected end of template, expected one of else, endfor.")
        #expect(syntaxError("{% if a %}x{% endfor %}")?.contains("line 1, column 15: unknown or unexpected tag 'endfor'") == true)
        #expect(syntaxError("{% frobnicate %}")?.contains("line 1, column 4: unknown or unexpected tag 'frobnicate'") == true)
        #expect(syntaxError("{{ 'unterminated }}")?.contains("unterminated string") == true)
        #expect(syntaxError("{# never closed")?.contains("missing end of comment tag") == true)
        #expect(syntaxError("{{ x ")?.contains("missing end of expression") == true)
        #expect(syntaxError("{{ a ? b }}")?.contains("unexpected character '?'") == true)
        #expect(syntaxError("é\n  ü {{ ) }}")?.contains("line 2, column 8") == true)
    }

    @Test func deepNestingIsASyntaxErrorNotACrash() {
        let deep = "{{ " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000) + " }}"
        #expect(syntaxError(deep)?.contains("nested too deeply") == true)
        let list = "{{ " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + " }}"
        #expect(syntaxError(list)?.contains("nested too deeply") == true)
    }

    @Test func runtimeErrorsNameTheLine() {
        #expect(renderError("line one\n{% set x = 1 %}\n{{ 'a' + none }}")
                == "Template error at line 3: can only concatenate str (not \"NoneType\") to str.")
        #expect(renderError("{% for m in messages %}\n{{ m.content.upper() }}\n{% endfor %}", ["messages": [["content": nil]]])
                == "Template error at line 2: 'None' has no attribute 'upper'.")
        #expect(renderError("\n\n{{ x | nosuchfilter }}") == "Template error at line 3: No filter named 'nosuchfilter'.")
        #expect(renderError("{% macro m() %}\n\n{{ 1 + 'a' }}{% endmacro %}\n{{ m() }}")
                == "Template error at line 3: unsupported operand type(s) for +: 'int' and 'str'.")
        #expect(renderError("{{ [].append(1) }}") == "Template error at line 1: access to attribute 'append' of 'list' object is unsafe.")
        #expect(renderError("{{ {}.update({}) }}") == "Template error at line 1: access to attribute 'update' of 'dict' object is unsafe.")
    }

    @Test func raiseExceptionMessageIsUnchanged() {
        #expect(renderError("{% if true %}{{ raise_exception('Conversation roles must alternate user/assistant/...') }}{% endif %}")
                == "Conversation roles must alternate user/assistant/...")
    }

    @Test func unknownNamesInUntakenBranchesAreFine() throws {
        let template = try ChatTemplate(source: "{% if false %}{{ x | nosuch }}{{ nosuch_function() }}{% elif true %}ok{% endif %}")
        #expect(try template.render(context: [:]) == "ok")
    }

    @Test func runawayLoopsStop() {
        let nested = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
        #expect(renderError(nested)?.contains("more than 1000000 loop iterations") == true)
        let output = "{% for i in range(1000) %}{{ 'x' * 1000 }}{% endfor %}"
        #expect(renderError(output, limits: TemplateLimits(maxOutputBytes: 100_000))?.contains("output grew past 100000 bytes") == true)
        let recursion = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
        #expect(renderError(recursion)?.contains("macro calls nested deeper than 64 levels") == true)
        #expect(renderError("{{ range(100000000) | length }}")?.contains("too large") == true)
        #expect(renderError("{{ 'x' * 100000000 }}")?.contains("too large") == true)
    }
}

@Suite struct ChatTemplateTests {
    static let smol = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"

    @Test func rendersMessages() throws {
        let template = try ChatTemplate(source: Self.smol)
        let prompt = try template.render(messages: [.system("Be brief."), .user("Hi"), .assistant("Hello"), .user("Bye")])
        #expect(prompt == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n")
        let finished = try template.render(messages: [.user("Hi")], addGenerationPrompt: false)
        #expect(finished.hasSuffix("<|im_start|>user\nHi<|im_end|>\n"))
    }

    @Test func contextMatchesTransformers() throws {
        let template = try ChatTemplate(source: "{{ tools }}|{{ documents is none }}|{{ bos_token }}{{ eos_token }}|{{ add_generation_prompt }}|{{ enable_thinking }}|{{ tools | length if tools else 0 }}")
        #expect(try template.render(messages: [], bosToken: "<s>", eosToken: "</s>", extra: ["enable_thinking": false])
                == "None|True|<s></s>|True|False|0")
        let tool = ToolSpec(name: "f", description: "does f", parameters: ["type": "object", "properties": [:]])
        #expect(try template.render(messages: [], tools: [tool], addGenerationPrompt: false)
                == "[{'type': 'function', 'function': {'name': 'f', 'description': 'does f', 'parameters': {'type': 'object', 'properties': {}}}}]|True||False||1")
    }

    @Test func toolCallsRenderWithArgumentsAsObjects() throws {
        let template = try ChatTemplate(source: "{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.name }}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}")
        let call = ToolCall(id: "c1", name: "get", arguments: ["city": "Zürich", "n": 2.0])
        #expect(try template.render(messages: [.assistant(text: "", toolCalls: [call])]) == #"get{"city": "Zürich", "n": 2.0}"#)
    }

    @Test func strftimeNowUsesTheGivenInstant() throws {
        let template = try ChatTemplate(source: "{{ strftime_now('%d %b %Y, %A %H:%M') }}")
        #expect(try template.render(context: [:], now: TemplateTime(year: 2024, month: 7, day: 26, hour: 14, minute: 5)) == "26 Jul 2024, Friday 14:05")
        #expect(TemplateTime(iso: "2026-03-14T09:26:53") == TemplateTime(year: 2026, month: 3, day: 14, hour: 9, minute: 26, second: 53))
        #expect(TemplateTime(iso: "2026-03-14") == TemplateTime(year: 2026, month: 3, day: 14))
        #expect(TemplateTime(iso: "yesterday") == nil)
        #expect(TemplateTime(iso: "2026-13-01") == nil)
        #expect(TemplateTime(iso: "0000-01-01") == nil)
        #expect(TemplateTime(year: Int.max, month: 1, day: 1).format("%A %Y") == "%A %Y")
    }

    @Test func strftimeNowReadsLooplTemplateNow() async throws {
        try await withEnvironment(["LOOPL_TEMPLATE_NOW": "2025-01-02T03:04:05"]) { () async throws in
            #expect(TemplateTime.current() == TemplateTime(year: 2025, month: 1, day: 2, hour: 3, minute: 4, second: 5))
            #expect(try ChatTemplate(source: "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}").render(context: [:]) == "2025-01-02 03:04:05")
        }
    }

    @Test func sharedAcrossTasks() async throws {
        let template = try ChatTemplate(source: Self.smol)
        let prompts = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<8 { group.addTask { try template.render(messages: [.user("n\(i)")]) } }
            var all: [String] = []
            for try await prompt in group { all.append(prompt) }
            return all
        }
        #expect(Set(prompts).count == 8)
    }
}

@Suite struct TemplateRobustnessTests {
    /// A fixed pseudo-random sequence, so failures reproduce.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state ^ (state >> 29)
        }
    }

    @Test func hugeSizesAreErrorsNotCrashes() throws {
        for source in ["{{ 'x' | indent(99999999999) }}", "{{ 'x'.center(99999999999) }}", "{{ '{:>99999999999}'.format(1) }}",
                       "{{ '%99999999999d' | format(1) }}", "{{ 'ab' * 9223372036854775807 }}", "{{ [1] * 4611686018427387904 }}",
                       "{{ range(-9223372036854775807, 9223372036854775807) | length }}", "{{ (-9223372036854775807 - 1) ** 100 }}",
                       "{{ '%.99999999999f' | format(1.5) }}"] {
            do {
                _ = try ChatTemplate(source: source).render(context: [:])
                Issue.record("rendered \(source)")
            } catch let error as LooplError {
                #expect(error.code == .templateError, "\(source)")
            } catch {
                Issue.record("\(source): \(error)")
            }
        }
        #expect(throws: LooplError.self) { try ChatTemplate(source: "{{ " + String(repeating: "not ", count: 100_000) + "x }}") }
        #expect(throws: LooplError.self) { try ChatTemplate(source: "{{ " + String(repeating: "- ", count: 100_000) + "1 }}") }
        let deepValue = "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}"
        #expect(throws: LooplError.self) { try ChatTemplate(source: deepValue).render(context: [:]) }
        let unrolled = "{% set x = [] %}" + String(repeating: "{% set x = [x] %}", count: 5000) + "{{ x | length }}"
        #expect(throws: LooplError.self) { try ChatTemplate(source: unrolled).render(context: [:]) }
        let cycle = "{% set ns = namespace(x=1) %}{% set ns.x = ns %}{{ ns | string | length > 0 }}{{ ns == ns }}"
        #expect(try ChatTemplate(source: cycle).render(context: [:]) == "TrueTrue")
        let nested = String(repeating: "{% if true %}", count: 3000) + String(repeating: "{% endif %}", count: 3000)
        #expect(throws: LooplError.self) { try ChatTemplate(source: nested) }
    }

    /// Mutated real templates either fail with a template error or render; nothing crashes or hangs.
    @Test func mutatedTemplatesNeverCrash() throws {
        var random = Generator(state: 42)
        let context = try #require(TemplateGoldens.contexts["tool_round_trip"]?.objectValue)
        let pieces = ["{%", "%}", "{{", "}}", "{#", "-", "(", ")", "[", "]", "'", "\"", "|", ".", " if ", " for ", "endif", "\\"]
        var rendered = 0, failed = 0
        for name in TemplateGoldens.names.prefix(40) {
            let source = Array(try TemplateGoldens.source(name).unicodeScalars)
            guard !source.isEmpty else { continue }
            for _ in 0..<5 {
                var mutated = source
                let at = Int.random(in: 0..<mutated.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: mutated.removeSubrange(at..<min(mutated.count, at + Int.random(in: 1...20, using: &random)))
                case 1: mutated.insert(contentsOf: pieces[Int.random(in: 0..<pieces.count, using: &random)].unicodeScalars, at: at)
                default: mutated = Array(mutated[..<at])
                }
                var text = String.UnicodeScalarView()
                text.append(contentsOf: mutated)
                do {
                    _ = try ChatTemplate(source: String(text)).render(context: context)
                    rendered += 1
                } catch let error as LooplError {
                    #expect(error.code == .templateError)
                    failed += 1
                }
            }
        }
        #expect(rendered > 0 && failed > 0)
    }
}
