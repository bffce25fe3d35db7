extension ResponseFormat {
    /// The grammar that enforces the format from the first token, with `spacing` between JSON
    /// tokens; nil for ``text``.
    public func grammar(spacing: GrammarSpacing = .separated) throws -> Grammar? {
        switch self {
        case .text: return nil
        case .jsonObject:
            var builder = GrammarBuilder()
            builder.spacing = spacing
            builder.add("root", builder.primitive("object"))
            return Grammar(gbnf: builder.text())
        case .jsonSchema(let schema): return try JSONSchemaGrammar.convert(schema: schema, spacing: spacing)
        }
    }
}
