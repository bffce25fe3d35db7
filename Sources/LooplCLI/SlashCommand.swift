/// One of `loopl chat`'s slash commands, typed as a line: its name, its argument and its help.
struct SlashCommand: Sendable {
    /// What the command does; `ChatCommand` runs it.
    enum Action: Sendable {
        case backend, think, toolChoice, save, load, clear, help, quit
    }

    let name: String
    /// The argument's name in the help (`NAME`), or "" for none.
    let argument: String
    let action: Action
    let help: String
    /// Other names that run it.
    var aliases: [String] = []

    /// `/name ARGUMENT`.
    var label: String { name + (argument.isEmpty ? "" : " " + argument) }

    static let all = [
        SlashCommand(name: "/backend", argument: "NAME", action: .backend, help: "Switch backend, keeping the conversation."),
        SlashCommand(name: "/think", argument: "MODE", action: .think,
                     help: "Thinking from the next turn on: auto, on, off, low, medium or high."),
        SlashCommand(name: "/tool-choice", argument: "CHOICE", action: .toolChoice,
                     help: "Tool choice from the next turn on: auto, required, none or a tool."),
        SlashCommand(name: "/save", argument: "FILE", action: .save, help: "Save the conversation to FILE."),
        SlashCommand(name: "/load", argument: "FILE", action: .load, help: "Replace the conversation with the one in FILE."),
        SlashCommand(name: "/clear", argument: "", action: .clear, help: "Start a new conversation."),
        SlashCommand(name: "/help", argument: "", action: .help, help: "List these commands."),
        SlashCommand(name: "/quit", argument: "", action: .quit, help: "Leave (so does end of input).", aliases: ["/exit"]),
    ]

    /// The command that `word` names.
    static func named(_ word: String) -> SlashCommand? {
        all.first { $0.name == word || $0.aliases.contains(word) }
    }

    /// One line per command: its label in a column, then its help.
    static var list: String {
        let column = (all.map(\.label.count).max() ?? 0) + 3
        return all.map { "  " + $0.label.padding(to: column) + $0.help }.joined(separator: "\n")
    }

    /// The sentence for a command that is not one, or that lacks its argument.
    static func unknown(_ line: String) -> String {
        "Unknown command \(line): type /help for the list."
    }
}
