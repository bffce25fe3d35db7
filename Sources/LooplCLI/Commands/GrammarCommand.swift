import Loopl

/// `loopl grammar`: prints the GBNF for a JSON Schema or for tool calls.
struct GrammarCommand: Command {
    static let name = "grammar"
    static let abstract = "Print the GBNF grammar of a JSON Schema, or of tool calls in a family's markup."
    static let help = """
        Print the GBNF grammar that Loopl gives llama.cpp, for debugging schemas.

        USAGE: loopl grammar --schema FILE
               loopl grammar --tools FILE --family NAME [--tool-choice required|auto|NAME] [--parallel]
                             [--thinking none|optional|open]

        OPTIONS:
          --schema FILE        A JSON Schema.
          --tools FILE         A JSON array of tools in the OpenAI shape.
          --family NAME        The tool-call family (default hermes); see FAMILIES.
          --tool-choice C      required (default), auto (a lazy grammar), or a tool's name.
          --parallel           Allow several calls in one turn, where the family can write them.
          --thinking T         none (default); optional: a thinking block may come before the call;
                               open: the prompt opened thinking, so the output closes it first.
          -h, --help           Show this help.

        FAMILIES:
        \(families)

        """

    /// The families with a grammar, wrapped for the help text.
    private static var families: String {
        var lines: [String] = []
        var line = " "
        for name in ToolCallGrammar.families.map(\.rawValue) {
            if line.count + name.count + 2 > 100 {
                lines.append(line)
                line = " "
            }
            line += " " + name
        }
        return (lines + [line]).joined(separator: "\n")
    }

    var schema: String?
    var tools: String?
    var family: String
    var choice: ToolChoice
    var parallel: Bool
    var reasoning: ToolCallGrammar.Reasoning

    init(arguments: inout Arguments) throws(UsageError) {
        schema = try arguments.option("schema")
        tools = try arguments.option("tools")
        family = try arguments.option("family") ?? "hermes"
        choice = ToolChoice(name: try arguments.option("tool-choice") ?? "required")
        parallel = arguments.flag("parallel")
        switch try arguments.option("thinking") ?? "none" {
        case "none": reasoning = .none
        case "optional": reasoning = .optional
        case "open": reasoning = .open
        case let other: throw UsageError("--thinking takes none, optional or open, not `\(other)`.")
        }
        guard (schema == nil) != (tools == nil) else { throw UsageError("Give either --schema or --tools.") }
    }

    func run(_ console: Console) async throws -> ExitCode {
        let grammar: Grammar?
        if let schema {
            grammar = try JSONSchemaGrammar.convert(schema: try JSONValue(parsing: try readText(schema, what: "schema")))
        } else if let tools {
            guard let list = try JSONValue(parsing: try readText(tools, what: "tools")).arrayValue else {
                throw LooplError(.invalidRequest, "\(tools) must hold a JSON array of tools.")
            }
            grammar = try ToolCallGrammar.make(tools: try list.map(ToolSpec.init(openAIValue:)),
                                               format: try ToolCallFormat.named(family), choice: choice,
                                               parallel: parallel, reasoning: reasoning)
        } else {
            return .usage
        }
        guard let grammar else {
            console.err("No grammar: the tool choice allows no call.")
            return .success
        }
        if grammar.lazy {
            console.err("lazy grammar; triggers: \(grammar.triggerPatterns + grammar.triggerTokens)")
        }
        for warning in grammar.warnings { console.err("warning: \(warning)") }
        console.out(grammar.gbnf + (grammar.gbnf.hasSuffix("\n") ? "" : "\n"))
        return .success
    }
}
