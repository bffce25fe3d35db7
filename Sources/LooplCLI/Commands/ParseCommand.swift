import Foundation
import Loopl

/// `loopl parse`: lifts tool calls out of raw model text on standard input.
struct ParseCommand: Command {
    static let name = "parse"
    static let abstract = "Lift tool calls out of raw model text read from standard input."
    static let help = """
        Read a model's raw text on standard input and print one JSON object:
        {"content": ..., "tool_calls": [{"name": ..., "arguments": {...}}]}, with "reasoning" and
        "rejected" keys when there are any. Exits 0 on any input, however broken.

        USAGE: loopl parse [--format auto|NAME] [--tools NAME,NAME]

        OPTIONS:
          --format NAME    The tool-call family: auto (default) recognises it from the text.
          --tools LIST     The declared tools, comma-separated; calls to others are rejected.
          -h, --help       Show this help.

        """

    var format: ToolCallFormat
    var tools: Set<String>?

    init(arguments: inout Arguments) throws(UsageError) {
        let name = try arguments.option("format") ?? "auto"
        do { format = try ToolCallFormat.named(name) } catch { throw UsageError("--format: " + error.message) }
        tools = try arguments.option("tools").map { Set($0.split(separator: ",").map { String($0) }) }
    }

    func run(_ console: Console) async throws -> ExitCode {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let result = ToolCallParser(format: format, toolNames: tools).parse(String(decoding: input, as: UTF8.self))
        console.out(result.jsonValue.jsonText() + "\n")
        return .success
    }
}
