import Loopl

/// The Jinja engine: ``ChatTemplate`` parses the source and renders it. Input: the template
/// source, then optionally a NUL byte and a JSON object to render with (else a chat with tools).
package enum TemplateFuzz {
    package static let target = FuzzTarget(name: "templates", dictionary: dictionary.map { Array($0.utf8) }) { run($0); return nil }

    /// Tighter than the defaults so that each input stays fast; the limits themselves are fuzzed
    /// as well, since a render that hits one must stop with an error. The allocation budget keeps
    /// each input within a few MiB of memory.
    static let limits = TemplateLimits(maxOutputBytes: 1 << 20, maxIterations: 100_000, maxCallDepth: 64,
                                       maxAllocationBytes: 4 << 20)
    static let time = TemplateTime.current()

    static func run(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let source = String(decoding: bytes[..<split], as: UTF8.self)
        guard let template = try? ChatTemplate(source: source, limits: limits) else { return }
        var context = defaultContext
        if split < bytes.endIndex, let value = try? JSONValue(parsing: bytes[(split + 1)...]), let object = value.objectValue {
            context = object
        }
        _ = try? template.render(context: context, now: time)
    }

    static let defaultContext: JSONObject = {
        let messages: [JSONValue] = [
            ["role": "system", "content": "Be brief."],
            ["role": "user", "content": "Weather in Paris?"],
            ["role": "assistant", "content": "", "tool_calls": [
                ["id": "call_1", "type": "function",
                 "function": ["name": "get_weather", "arguments": ["city": "Paris", "days": 3]]],
            ]],
            ["role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "{\"temp\": 21}"],
            ["role": "assistant", "content": "It is 21 °C.", "reasoning_content": "Read the result."],
            ["role": "user", "content": [["type": "text", "text": "Thanks"]]],
        ]
        let tools: [JSONValue] = [
            ["type": "function", "function": [
                "name": "get_weather", "description": "Weather for a city",
                "parameters": ["type": "object", "properties": ["city": ["type": "string"], "days": ["type": "integer"]],
                               "required": ["city"]],
            ]],
        ]
        return ChatTemplate.context(messages: messages, tools: tools, addGenerationPrompt: true,
                                    bosToken: "<s>", eosToken: "</s>", extra: ["enable_thinking": true])
    }()

    static let dictionary = [
        "{%", "%}", "{%-", "-%}", "{{", "}}", "{{-", "-}}", "{#", "#}", "for ", " in ", "endfor", "if ", "elif ",
        "else", "endif", "set ", "endset", "macro ", "endmacro", "call", "endcall", "filter ", "endfilter",
        "generation", "endgeneration", "break", "continue", "recursive", "loop.index", "loop(", "namespace(",
        "messages", "message['content']", "tools", "tojson", "|tojson(indent=2)", "|length", "|join(", "|map(attribute=",
        "|selectattr(", "|rejectattr(", "|items", "|trim", "|replace(", "|default(", "|string", "|int", "|list",
        "|safe", "|format(", "|batch(", "|dictsort", "|unique", "|round", "raise_exception(", "strftime_now(",
        "range(", "is defined", "is not none", "is string", "is mapping", " and ", " or ", " not ", "~", "**", "//",
        "%", "[::-1]", "[1:]", ".split(", ".startswith(", ".strip()", ".items()", ".get(", ".upper()", "+", "'",
        "\"", "(", ")", "[", "]", "{", "}", ",", ":", "=", "==", "!=", "<", ">", "none", "true", "false", "1e308",
    ]
}
