import Foundation
import Loopl

/// `loopl template render`: renders a chat template with a JSON context; `loopl template list`:
/// the built-in templates.
struct TemplateCommand: Command {
    static let name = "template"
    static let abstract = "Render a chat template with a JSON context, or list the built-in ones."
    static let help = """
        Render a chat template with a JSON context: every top-level key of the context object is a
        template variable. Standard output is exactly the rendered text. 'list' prints the built-in
        templates, which --chat-template NAME (run, chat, serve, bench) and a backend's
        "chatTemplate" key choose: name, tool-call format, families.

        USAGE: loopl template render (--template NAME|FILE | --model MODEL.gguf) --context FILE
               loopl template list

        OPTIONS:
          --template NAME|FILE  A built-in template's name, or a Jinja chat template file.
          --model FILE          A GGUF model whose own template (tokenizer.chat_template) is used.
          --name NAME           With --model: a named template variant (e.g. tool_use).
          --context FILE        A JSON object: messages, tools, add_generation_prompt, bos_token, ...
          -h, --help            Show this help.

        Set LOOPL_TEMPLATE_NOW to an ISO date to fix what strftime_now() sees.

        """

    var templatePath: String?
    var modelPath: String?
    var variant: String?
    var contextPath = ""
    var listing = false

    init(arguments: inout Arguments) throws(UsageError) {
        switch arguments.positional() {
        case "list":
            listing = true
            return
        case "render": break
        default: throw UsageError("Use 'loopl template render' or 'loopl template list'.")
        }
        templatePath = try arguments.option("template")
        modelPath = try arguments.option("model")
        variant = try arguments.option("name")
        guard (templatePath == nil) != (modelPath == nil) else { throw UsageError("Give either --template or --model.") }
        guard let context = try arguments.option("context") else { throw UsageError("Give --context FILE.") }
        contextPath = context
    }

    func run(_ console: Console) async throws -> ExitCode {
        if listing {
            for entry in BuiltInTemplate.all {
                let format = try ChatPrompt(templateSource: entry.source, bosText: "", eosText: "", addsBOS: false).toolCallFormat
                console.out(entry.name.padding(toLength: 10, withPad: " ", startingAt: 0)
                            + format.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0) + entry.summary + "\n")
            }
            return .success
        }
        let source: String
        if let templatePath {
            source = BuiltInTemplate.isFile(templatePath) ? try readText(templatePath, what: "template")
                : try BuiltInTemplate.named(templatePath).source
        } else if let modelPath {
            let metadata = try GGUFMetadata(contentsOf: modelPath)
            let found = variant.map { metadata.chatTemplate(named: $0) } ?? metadata.chatTemplate
            guard let found else {
                throw LooplError(.templateError, "\(modelPath) has no chat template\(variant.map { " named \($0)" } ?? "").")
            }
            source = found
        } else {
            return .usage
        }
        guard case .object(let context) = try JSONValue(parsing: try readText(contextPath, what: "context")) else {
            throw LooplError(.invalidRequest, "The context in \(contextPath) must be a JSON object.")
        }
        console.out(try ChatTemplate(source: source).render(context: context))
        return .success
    }
}

/// The contents of a text file, or an error naming it.
func readText(_ path: String, what: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw LooplError(.io, "Cannot read the \(what) file \(path).")
    }
    return String(decoding: data, as: UTF8.self)
}
