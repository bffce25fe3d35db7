import Foundation
import Loopl

/// `loopl run`: one agent run on a prompt.
struct RunCommand: Command {
    static let name = "run"
    static let abstract = "Run an agent once on a prompt and print its answer."
    static let help = """
        Run an agent once: the model answers PROMPT, calling the enabled tools as it needs. A call
        that needs approval (--approve ask, or "approval" in the config: docs/mcp.md) is asked about
        on standard error when standard input is a terminal; without one, it is denied.

        USAGE: loopl run [options] PROMPT     (PROMPT - reads it from standard input)
               loopl run [options] --session FILE --resume

        OPTIONS:
        \(CLIOption.help(options))

        """

    static let resume = CLIOption.flag("resume", help: "Finish the interrupted run saved in --session FILE (its pending tool calls, "
                                           + "or the model's turn after a tool result), without a PROMPT.")
    static let options = SharedOptions.agent + [resume, SharedOptions.json, CLIOption.showHelp]

    var settings: AgentSettings
    /// nil with `--resume`.
    var prompt: String?

    init(arguments: inout Arguments) throws(UsageError) {
        let resume = arguments.flag(Self.resume)
        settings = try AgentSettings(arguments: &arguments)
        if resume {
            guard settings.session != nil else { throw UsageError("--resume needs --session FILE: the run to finish.") }
            if let extra = arguments.positional() { throw UsageError("--resume takes no prompt ('\(extra)'): it finishes the saved run.") }
            prompt = nil
        } else {
            guard let prompt = arguments.positional() else { throw UsageError("Give the prompt.") }
            self.prompt = prompt
        }
    }

    func run(_ console: Console) async throws -> ExitCode {
        let prompt = self.prompt == "-" ? try StandardInput.readAll() : self.prompt
        let asks = TerminalApproval.canAsk
        let denying: ToolApprover = { _ in .deny }
        let approver = asks ? TerminalApproval.asking(StandardInputLines()) { console.err($0, newline: false) } : denying
        let agent = try await settings.makeAgent(console: console, approver: approver)
        var tools = await agent.tools
        for source in await agent.toolSources { tools += await source.currentTools() }
        let hints = Dictionary(tools.map { ($0.name, BuiltInTools.allowHint($0)) }) { (first: String, _: String) in first }
        let printer = EventPrinter(console: console, json: settings.json, verbose: settings.verbose, showReasoning: settings.showReasoning,
                                   asks: asks, allowHint: { hints[$0] ?? BuiltInTools.allowHint(nil) })
        do {
            let events = prompt.map { agent.stream($0) } ?? agent.resume()
            for try await event in events {
                // Saved before it is shown: every message an event reports is in the file.
                try await AgentSettings.save(after: event, of: agent, to: settings.session)
                printer.print(event)
            }
        } catch {
            if let session = settings.session { try? SessionFile.save(await agent.messages, to: session) }
            await agent.model.close()
            throw error
        }
        if let session = settings.session { try SessionFile.save(await agent.messages, to: session) }
        await agent.model.close()
        return .success
    }
}
