/// Builds the rules of one call's body, for each ``CallBody`` shape, on a schema converter.
struct CallRules {
    var converter: SchemaConverter
    private var pythonStrings = false
    /// Ends the name of the rule of a tool's JSON arguments.
    static let argumentsSuffix = "-args"

    init(spacing: GrammarSpacing = .separated) {
        converter = SchemaConverter(spacing: spacing)
    }

    /// The GBNF expression of a call to `tool`.
    mutating func body(_ body: CallBody, tool: ToolSpec) throws -> String {
        switch body {
        case .json(let nameKey, let argumentsKey, let before, let after):
            let arguments = try converter.add(schema: tool.parameters, name: "tool-\(tool.name)\(Self.argumentsSuffix)")
            let name = Grammar.literal(JSONValue.string(tool.name).jsonText())
            let key = Grammar.literal(JSONValue.string(nameKey).jsonText())
            let argumentsName = Grammar.literal(JSONValue.string(argumentsKey).jsonText())
            return [#""{" space"#, before, "\(key) space \":\" space \(name) \",\" space \(argumentsName) space \":\" space \(arguments)",
                    after, #"space "}""#].filter { !$0.isEmpty }.joined(separator: " ")
        case .framed(let head, let tail):
            let arguments = try converter.add(schema: tool.parameters, name: "tool-\(tool.name)\(Self.argumentsSuffix)")
            return [head(tool.name), arguments, tail].filter { !$0.isEmpty }.joined(separator: " ")
        case .tagged(let tags):
            return try tagged(tool, tags)
        case .pythonic:
            return try pythonic(tool)
        }
    }

    /// The declared parameters, required ones first, each group in declared order.
    static func parameters(of tool: ToolSpec) -> [(name: String, schema: JSONValue, required: Bool)] {
        let properties = tool.parameters["properties"]?.objectValue ?? JSONObject()
        let required = Set(tool.parameters["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let all = properties.map { (name: $0.key, schema: $0.value, required: required.contains($0.key)) }
        return all.filter(\.required) + all.filter { !$0.required }
    }

    /// Required items in order, then each optional item at most once in order, `separator` between items.
    static func sequence(_ items: [(rule: String, required: Bool)], separator: String) -> String {
        let required = items.filter(\.required).map(\.rule)
        let optional = items.filter { !$0.required }.map(\.rule)
        let sep = separator.isEmpty ? "" : separator + " "
        if !required.isEmpty || sep.isEmpty {
            return (required.joined(separator: " " + sep) + " "
                    + optional.map { "(\(sep)\($0))?" }.joined(separator: " ")).trimmingWhitespace()
        }
        guard !optional.isEmpty else { return "" }
        let choices = optional.indices.map { first in
            ([optional[first]] + optional[(first + 1)...].map { "(\(sep)\($0))?" }).joined(separator: " ")
        }
        return "( " + choices.joined(separator: " | ") + " )?"
    }

    /// `callOpen`, each parameter in its tags, `callClose`. String parameters are raw text (string
    /// enums stay enforced); the others are JSON.
    private mutating func tagged(_ tool: ToolSpec, _ tags: TaggedParameters) throws -> String {
        var items: [(rule: String, required: Bool)] = []
        for parameter in Self.parameters(of: tool) {
            let schema = parameter.schema
            let value: String
            var isText = true
            if let values = schema["enum"]?.arrayValue ?? schema["const"].map({ [$0] }), !values.isEmpty {
                // Strings raw, other values as JSON: the parser reads bare text that is not JSON as a string.
                value = GrammarBuilder.group(values.map { Grammar.literal($0.stringValue ?? $0.jsonText()) }.joined(separator: " | "))
                isText = values.allSatisfy { $0.stringValue != nil }
            } else if Self.acceptsString(schema) {
                for keyword in ["minLength", "maxLength", "pattern", "format"] where schema[keyword] != nil {
                    converter.warn("`\(keyword)` on the raw text parameter `\(parameter.name)` of `\(tool.name)` is not enforced")
                }
                value = converter.builder.textWithout(tags.delimiter, name: "text", followedBy: tags.delimiter, trimmed: tags.trimmed)
            } else {
                value = try converter.add(schema: schema, name: "tool-\(tool.name)-\(parameter.name)")
                isText = false
            }
            let rule = converter.builder.add("tool-\(tool.name)-\(parameter.name)",
                                             "\(tags.parameterOpen(parameter.name, isText, schema)) \(value) \(tags.parameterClose)")
            items.append((rule, parameter.required))
        }
        return [tags.callOpen(tool.name), Self.sequence(items, separator: ""), tags.callClose]
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// `NAME(key=value, ...)`, values as JSON whose strings use only the escapes Python shares with JSON.
    private mutating func pythonic(_ tool: ToolSpec) throws -> String {
        if !pythonStrings {
            pythonStrings = true
            converter.builder.add("char", #"[^"\\\x7F\x00-\x1F] | [\\] (["\\/nrt] | "u" [0-9a-fA-F]{4})"#)
        }
        var items: [(rule: String, required: Bool)] = []
        for parameter in Self.parameters(of: tool) {
            let value = try converter.add(schema: parameter.schema, name: "tool-\(tool.name)-\(parameter.name)")
            let rule = converter.builder.add("tool-\(tool.name)-\(parameter.name)-kwarg", "\(Grammar.literal(parameter.name + "=")) \(value)")
            items.append((rule, parameter.required))
        }
        let arguments = Self.sequence(items, separator: Grammar.literal(", "))
        return [Grammar.literal(tool.name + "("), arguments, Grammar.literal(")")].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// True when some JSON type the schema allows is a string (so raw text is the safer reading),
    /// including a schema that does not constrain the type.
    static func acceptsString(_ schema: JSONValue) -> Bool {
        if schema["type"]?.stringValue == "string" { return true }
        let typing = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "properties", "items"]
        if case .object(let object) = schema, !typing.contains(where: { object[$0] != nil }) { return true }
        if schema == .bool(true) { return true }
        if let types = schema["type"]?.arrayValue { return types.contains("string") }
        for keyword in ["anyOf", "oneOf"] {
            if let alternatives = schema[keyword]?.arrayValue, alternatives.contains(where: acceptsString) { return true }
        }
        return false
    }
}
