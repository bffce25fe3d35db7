/// The prompt templates `/api/generate` takes in `template`: Ollama's legacy ones, a subset of Go's
/// text/template. `{{ .System }}` and `{{ .Prompt }}` are the request's; `{{ .Response }}` is where
/// the model's answer begins, so the template is cut there; `{{ if .X }}`, `{{ else }}` and
/// `{{ end }}` test them; `{{-` and `-}}` trim the spaces beside an action. Anything else (the
/// `.Messages` loops of newer templates, functions, pipelines) is refused with a 400 naming it.
enum OllamaTemplate {
    private enum Token { case text(String), action(String) }

    /// `source` with the request's system prompt and prompt; a 400 on `field` when it cannot be run.
    static func render(_ source: String, system: String, prompt: String, field: RequestField) throws(APIError) -> String {
        var renderer = Renderer(tokens: try tokens(source, field: field), values: [".System": system, ".Prompt": prompt], field: field)
        guard try renderer.block(active: true) == nil else { throw field.error("has an {{ else }} or {{ end }} without its {{ if }}.") }
        return renderer.output
    }

    private static func tokens(_ source: String, field: RequestField) throws(APIError) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            var text = String(rest[..<open.lowerBound])
            rest = rest[open.upperBound...]
            guard let close = rest.range(of: "}}") else { throw field.error("has a {{ without its }}.") }
            var action = rest[..<close.lowerBound]
            rest = rest[close.upperBound...]
            if action.hasPrefix("-") {
                action.removeFirst()
                while let last = text.last, last.isWhitespace { text.removeLast() }
            }
            if action.hasSuffix("-") {
                action.removeLast()
                rest = rest.drop(while: \.isWhitespace)
            }
            tokens += [.text(text), .action(action.trimmed)]
        }
        return tokens + [.text(String(rest))]
    }

    private struct Renderer {
        let tokens: [Token]
        let values: [String: String]
        let field: RequestField
        var index = 0
        var output = ""
        /// Set at `{{ .Response }}`: nothing after it is written.
        var cut = false

        /// Writes tokens (when `active`) up to an `else` or `end`, which it returns; nil at the end.
        mutating func block(active: Bool) throws(APIError) -> String? {
            while index < tokens.count {
                let token = tokens[index]
                index += 1
                switch token {
                case .text(let text): if active && !cut { output += text }
                case .action(let action) where action == "else" || action == "end": return action
                case .action(let action) where action.hasPrefix("if "):
                    let condition = try value(action.dropFirst(3).trimmed)
                    var end = try block(active: active && !condition.isEmpty)
                    if end == "else" { end = try block(active: active && condition.isEmpty) }
                    guard end == "end" else { throw field.error("has an {{ if }} without its {{ end }}.") }
                case .action(".Response"): if active { cut = true }
                case .action(let action): if active && !cut { output += try value(action) } else { _ = try value(action) }
                }
            }
            return nil
        }

        private func value(_ name: String) throws(APIError) -> String {
            guard let value = values[name] else {
                throw field.error("uses {{ \(name) }}, which is not run here: a template may use .System, .Prompt and .Response, with if, else and end.")
            }
            return value
        }
    }
}

private extension Substring {
    /// Without the spaces, tabs and newlines at either end.
    var trimmed: String { String(String(drop(while: \.isWhitespace).reversed()).drop(while: \.isWhitespace).reversed()) }
}
