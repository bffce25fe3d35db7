extension ResponseFormat {
    /// The grammar that enforces the format from the first token; nil for ``text``.
    public func grammar() throws -> Grammar? {
        switch self {
        case .text: return nil
        case .jsonObject:
            var builder = GrammarBuilder()
            builder.add("root", builder.primitive("object"))
            return Grammar(gbnf: builder.text())
        case .jsonSchema(let schema): return try JSONSchemaGrammar.convert(schema: schema)
        }
    }
}
