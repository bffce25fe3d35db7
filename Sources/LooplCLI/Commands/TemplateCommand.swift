import Foundation
import Loopl

/// `loopl template render`: renders a chat template with a JSON context.
struct TemplateCommand: Command {
    static let name = "template"
    static let abstract = "Render a chat template (a file, or a model's own) with a JSON context."
    static let help = """
        Render a chat template with a JSON context: every top-level key of the context object is a
        template variable. Standard output is exactly the rendered text.

        USAGE: loopl template render (--template FILE | --model MODEL.gguf) --context FILE

        OPTIONS:
          --template FILE   A Jinja chat template.
          --model FILE      A GGUF model whose own template (tokenizer.chat_template) is used.
          --name NAME       With --model: a named template variant (e.g. tool_use).
          --context FILE    A JSON object: messages, tools, add_generation_prompt, bos_token, ...
          -h, --help        Show this help.

        Set LOOPL_TEMPLATE_NOW to an ISO date to fix what strftime_now() sees.

        """

    var templatePath: String?
    var modelPath: String?
    var variant: String?
    var contextPath: String

    init(arguments: inout Arguments) throws(UsageError) {
        guard arguments.positional() == "render" else { throw UsageError("Use 'loopl template render'.") }
        templatePath = try arguments.option("template")
        modelPath = try arguments.option("model")
        variant = try arguments.option("name")
        guard (templatePath == nil) != (modelPath == nil) else { throw UsageError("Give either --template or --model.") }
        guard let context = try arguments.option("context") else { throw UsageError("Give --context FILE.") }
        contextPath = context
    }

    func run(_ console: Console) async throws -> ExitCode {
        let source: String
        if let templatePath {
            source = try readText(templatePath, what: "template")
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
