import Foundation
import Loopl

/// `loopl run`: one agent run on a prompt.
struct RunCommand: Command {
    static let name = "run"
    static let abstract = "Run an agent once on a prompt and print its answer."
    static let help = """
        Run an agent once: the model answers PROMPT, calling the enabled tools as it needs.

        USAGE: loopl run [options] PROMPT     (PROMPT - reads it from standard input)

        OPTIONS:
        \(AgentSettings.optionsHelp)
          --json                 Print every event as one JSON object per line, and nothing else.
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
        let prompt = self.prompt == "-" ? try StandardInput.readAll() : self.prompt
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
