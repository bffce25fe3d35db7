import Dispatch
import Foundation
import Loopl
import LooplTerminal

/// `loopl chat`: an interactive conversation with the terminal transcript.
struct ChatCommand: Command {
    static let name = "chat"
    static let abstract = "Talk with an agent interactively; the conversation is kept between sessions."
    static let help = """
        Talk with an agent. Each line you type is a turn; the answer streams as it is written,
        with tool calls as one-line pills. Ctrl-C cancels the running turn; a second Ctrl-C quits.
        A call that needs approval (--approve ask, or "approval" in the config: docs/mcp.md) is
        shown with its arguments and asks y (run it), a (always, in this run) or n (deny).

        The conversation is saved after every complete message (an answer, a tool result) in
        $XDG_DATA_HOME/loopl/conversation.json (else ~/.local/share/loopl/conversation.json);
        --continue resumes it, first finishing a run that was interrupted.

        USAGE: loopl chat [--continue] [options]

        COMMANDS (typed as a line):
        \(SlashCommand.list)

        OPTIONS:
        \(CLIOption.help(options))

        """

    static let resume = CLIOption.flag("continue", help: "Resume the last conversation, first finishing an interrupted run.")
    static let options = [resume] + SharedOptions.agent + [CLIOption.showHelp]

    var settings: AgentSettings
    var resume: Bool

    init(arguments: inout Arguments) throws(UsageError) {
        resume = arguments.flag(Self.resume)
        settings = try AgentSettings(arguments: &arguments)
        if settings.json { throw UsageError("loopl chat has no --json; use loopl run --json.") }
    }

    /// Where the current conversation is kept.
    static var conversationPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/loopl/conversation.json"
    }

    func run(_ console: Console) async throws -> ExitCode {
        let view = TranscriptView(style: .detect(fd: 1), verbose: settings.verbose, showReasoning: settings.showReasoning)
        let lines = StandardInputLines()
        var agent = try await settings.makeAgent(console: console, approver: TerminalApproval.asking(lines) { console.out($0) })
        let path = settings.session ?? Self.conversationPath
        let interrupts = Interrupts()
        if resume {
            agent = await agent.restarted(with: try SessionFile.load(path))
            let count = await agent.messages.count
            console.out(view.render(.note("resumed \(count) messages from \(path)")) + "\n")
            if await agent.isInterrupted {
                console.out(view.render(.note("finishing the interrupted run")) + "\n")
                if try await turn(agent.resume(), agent: agent, path: path, view: view, console: console, interrupts: interrupts) > 1 {
                    await agent.model.close()
                    return .success
                }
            }
        } else if settings.session == nil {
            agent = await agent.restarted(with: [])
        }
        while true {
            console.out(view.style.colour ? "\u{1B}[1;36m› \u{1B}[0m" : "› ")
            guard let line = await lines.next(orInterrupt: interrupts) else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text.hasPrefix("/") {
                if try await command(text, agent: &agent, view: view, console: console) { break }
                continue
            }
            if try await turn(agent.stream(text), agent: agent, path: path, view: view, console: console, interrupts: interrupts) > 1 { break }
        }
        await agent.model.close()
        console.out("\n")
        return .success
    }

    /// Shows one run's events as they come, saving the conversation to `path` after every complete
    /// message and at the end; Ctrl-C cancels it. Returns the Ctrl-C presses (2: quit).
    private func turn(_ events: EventChannel<AgentEvent>, agent: Agent, path: String, view: TranscriptView,
                      console: Console, interrupts: Interrupts) async throws -> Int {
        let toTerminal = isatty(1) == 1
        let turn = Task {
            var transcript = Transcript()
            var reasoningStream = ReasoningStream(view: view)
            for try await event in events {
                try await AgentSettings.save(after: event, of: agent, to: path)
                switch event {
                case .reasoning(let delta): console.out(reasoningStream.reasoning(delta))
                case .metrics: break
                default: console.out(reasoningStream.end())
                }
                switch event {
                case .text(let delta): console.out(toTerminal ? TerminalText.sanitized(delta) : delta)
                case .toolFinished, .warning, .retrying:
                    if transcript.apply(event), let item = transcript.items.last { console.out("\n" + view.render(item) + "\n") }
                case .approvalRequested:
                    transcript.apply(event)
                    if let item = transcript.items.last { console.out("\n" + view.render(item) + "\n" + TranscriptView.approvalQuestion) }
                default:
                    transcript.apply(event)
                }
            }
            if let metrics = transcript.metrics { console.out("\n" + view.meter(metrics) + "\n") }
        }
        interrupts.onInterrupt { turn.cancel() }
        do { try await turn.value } catch { console.err("\nerror: \(error)") }
        let presses = interrupts.presses
        interrupts.onInterrupt(nil)
        if presses > 0 { console.out("\n" + view.render(.note("cancelled")) + "\n") }
        try SessionFile.save(await agent.messages, to: path)
        return presses
    }

    /// Runs a slash command (``SlashCommand``); true to quit.
    private func command(_ line: String, agent: inout Agent, view: TranscriptView, console: Console) async throws -> Bool {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : nil
        func note(_ text: String) { console.out(view.render(.note(text)) + "\n") }
        func warn(_ text: String) { console.out(view.render(.warning(text)) + "\n") }
        guard let command = SlashCommand.named(words[0]) else {
            warn(SlashCommand.unknown(line))
            return false
        }
        if !command.argument.isEmpty, argument == nil, command.action != .think, command.action != .toolChoice {
            warn("\(command.name) needs \(command.argument).")
            return false
        }
        switch command.action {
        case .quit: return true
        case .help: console.out(SlashCommand.list + "\n")
        case .clear:
            agent = await agent.restarted(with: [])
            note("new conversation")
        case .save:
            let file = argument ?? ""
            try SessionFile.save(await agent.messages, to: file)
            note("saved \(await agent.messages.count) messages to \(file)")
        case .load:
            do {
                agent = await agent.restarted(with: try SessionFile.load(argument ?? ""))
                note("loaded \(await agent.messages.count) messages from \(argument ?? "")")
            } catch { warn("\(error)") }
        case .think:
            guard let setting = argument.flatMap(ReasoningSetting.init(name:)) else {
                let current = await agent.options.generation.reasoning.name
                warn("/think takes auto, on, off, low, medium or high (now: \(current)).")
                break
            }
            var options = await agent.options
            options.generation.reasoning = setting
            await agent.setOptions(options)
            note("thinking \(setting.name)")
        case .toolChoice: await setToolChoice(argument, agent: agent, note: note, warn: warn)
        case .backend:
            do {
                agent = try await switchBackend(argument ?? "", from: agent, console: console)
                note("backend \(argument ?? "")")
            } catch { warn("\(error)") }
        }
        return false
    }

    /// `/tool-choice CHOICE`: the first iteration's tool choice from the next turn on.
    private func setToolChoice(_ word: String?, agent: Agent, note: (String) -> Void, warn: (String) -> Void) async {
        var tools = await agent.tools.map(\.name)
        for source in await agent.toolSources { tools += await source.currentTools().map(\.name) }
        let choice = word.map(ToolChoice.init(name:))
        if let choice, case .tool(let name) = choice, !tools.contains(name) {
            warn("/tool-choice names '\(name)', which is not an enabled tool (offered: \(tools.isEmpty ? "none" : tools.joined(separator: ", "))).")
            return
        }
        var options = await agent.options
        guard let choice else {
            warn("/tool-choice takes auto, required, none or a tool's name (now: \(options.firstToolChoice.name)).")
            return
        }
        options.firstToolChoice = choice
        await agent.setOptions(options)
        note("tool choice \(choice.name)")
    }

    /// `/backend NAME`: the agent of that backend, with this one's conversation and the choices made in this session.
    private func switchBackend(_ name: String, from agent: Agent, console: Console) async throws -> Agent {
        var settings = self.settings
        settings.backend = name
        let next = try await settings.makeAgent(console: console, approver: agent.approver).restarted(with: await agent.messages)
        var options = await next.options
        options.generation.reasoning = await agent.options.generation.reasoning
        options.firstToolChoice = await agent.options.firstToolChoice
        await next.setOptions(options)
        await agent.model.close()
        return next
    }
}

/// Ctrl-C presses, handled on a dispatch queue instead of ending the process.
final class Interrupts: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (() -> Void)?
    private var count = 0
    private let source: any DispatchSourceSignal

    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT)
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
    }

    private func fire() {
        lock.lock()
        count += 1
        let action = handler
        lock.unlock()
        action?()
    }

    /// Sets what one Ctrl-C does.
    func onInterrupt(_ action: (() -> Void)?) {
        lock.lock()
        handler = action
        count = 0
        lock.unlock()
    }

    /// Presses since the handler was last set.
    var presses: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
