import Foundation
import Loopl

/// `loopl run`: one agent run on a prompt.
struct RunCommand: Command {
    static let name = "run"
    static let abstract = "Run an agent once on a prompt and print its answer."
    static let help = """
        Run an agent once: the model answers PROMPT, calling the enabled tools as it needs.

        USAGE: loopl run [options] PROMPT

        OPTIONS:
          --backend NAME         The backend to use (default: the config's default, or $LOOPL_BACKEND).
          --config FILE          The configuration file (default: $LOOPL_CONFIG, ./loopl.json,
                                 ~/.config/loopl/config.json, else built-in defaults).
          --tools LIST           Tools to enable, comma-separated: calc, time, files (default: none).
          --mcp LIST             MCP servers of the config's mcpServers to enable, comma-separated, or
                                 all (default: none); their tools are named SERVER_TOOL (loopl tools).
          --root DIR             The folder the files tools may read (default: the current folder).
          --tool-choice CHOICE   auto, required, none, or an enabled tool's name (an MCP one too), for
                                 the first iteration (default: auto).
          --max-iterations N     The most model turns, 1 to 100 (default: 8).
          --max-tokens N         The most tokens per turn, 1 to 1000000 (default: 512).
          --temperature T        Sampling temperature, 0 for greedy (default: 0.8).
          --seed S               The sampler's seed, 0 to 4294967294.
          --session FILE         Load the conversation from FILE and save it back after the run.
          --json-schema FILE     The answer must be JSON that this JSON Schema accepts.
          --json                 Print every event as one JSON object per line, and nothing else.
          --verbose              Show each tool call's arguments and result under its line.
          -h, --help             Show this help.

        """

    var options: AgentSettings
    var prompt: String

    init(arguments: inout Arguments) throws(UsageError) {
        options = try AgentSettings(arguments: &arguments)
        guard let prompt = arguments.positional() else { throw UsageError("Give the prompt.") }
        self.prompt = prompt
    }

    func run(_ console: Console) async throws -> ExitCode {
        let agent = try await options.makeAgent(console: console)
        let printer = EventPrinter(console: console, json: options.json, verbose: options.verbose)
        var status = ExitCode.success
        do {
            for try await event in agent.stream(prompt) { printer.print(event) }
        } catch {
            status = .failure
            if let session = options.session { try SessionFile.save(await agent.messages, to: session) }
            await agent.model.close()
            throw error
        }
        if let session = options.session { try SessionFile.save(await agent.messages, to: session) }
        await agent.model.close()
        return status
    }
}
