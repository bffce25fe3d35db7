import Loopl

/// `loopl inspect`: prints a GGUF model's metadata.
struct InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "Print a GGUF model's metadata: architecture, context, chat templates."
    static let help = """
        Print a GGUF model's metadata (read from its header, without loading it).

        USAGE: loopl inspect [--json] MODEL.gguf

        OPTIONS:
          --json       Print every key and value as one JSON object.
          -h, --help   Show this help.

        """

    var json: Bool
    var path: String

    init(arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag("json")
        guard let path = arguments.positional() else { throw UsageError("Give the model file.") }
        self.path = path
    }

    func run(_ console: Console) async throws -> ExitCode {
        let metadata = try GGUFMetadata(contentsOf: path)
        if json {
            console.out(metadata.jsonValue().jsonText(style: .python) + "\n")
            return .success
        }
        var lines = [
            "file:           \(path)",
            "architecture:   \(metadata.architecture ?? "unknown")",
            "name:           \(metadata.name ?? "unknown")",
            "context length: \(metadata.contextLength.map(String.init) ?? "unknown")",
            "BOS token:      \(metadata.bosToken ?? "none")",
            "EOS token:      \(metadata.eosToken ?? "none")",
            "templates:      \((metadata.chatTemplate == nil ? [] : ["default"]) + metadata.chatTemplateNames)",
        ]
        if let description = metadata.modelDescription { lines.insert("description:    \(description)", at: 3) }
        if let template = metadata.chatTemplate { lines += ["chat template:", template] }
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }
}
