import Foundation
import Loopl
import LooplLlama

/// `loopl cache ls|clear`: shows and empties the prompt cache on disk.
struct CacheCommand: Command {
    static let name = "cache"
    static let abstract = "List or empty the prompt cache of the llama backend."
    static let help = """
        The llama backend saves the state of each prompt it evaluated (its system prompt, tools and
        conversation) in $LOOPL_HOME/prompt-cache (or $LOOPL_PROMPT_CACHE_DIR), and a later prompt
        that starts the same way, in any process, loads it instead of evaluating it. A backend's
        config keys promptCache (default true), promptCacheMiB (default 1024) and
        promptCacheDirectory set it up.

        USAGE: loopl cache ls [--dir DIR]
               loopl cache clear [--dir DIR]

        ARGUMENTS:
          ls                     List the saved prompts: size, age and prompt tokens, most recent first.
          clear                  Remove every saved prompt.

        OPTIONS:
          --dir DIR              The folder (default: $LOOPL_PROMPT_CACHE_DIR or $LOOPL_HOME/prompt-cache).
          -h, --help             Show this help.

        """

    enum Action: String { case ls, clear }

    var action: Action
    var directory: String

    init(arguments: inout Arguments) throws(UsageError) {
        directory = try arguments.option("dir") ?? LooplHome.promptCacheDirectory
        guard let word = arguments.positional() else { throw UsageError("Say what to do: loopl cache ls, or loopl cache clear.") }
        guard let action = Action(rawValue: word) else { throw UsageError("Unknown cache action '\(word)': use ls or clear.") }
        self.action = action
    }

    func run(_ console: Console) async throws -> ExitCode {
        switch action {
        case .clear:
            let removed = PromptCacheListing.clear(directory)
            console.out("Removed \(removed) saved prompt\(removed == 1 ? "" : "s") from \(directory).\n")
        case .ls:
            let entries = PromptCacheListing.entries(in: directory, readingHeaders: true).sorted { $0.used > $1.used }
            for entry in entries {
                let tokens = entry.tokens.map { "\($0) tokens" } ?? "unreadable"
                console.out("\(Self.size(entry.size))\t\(Self.age(Date().timeIntervalSince(entry.used)))\t\(tokens)\t\(entry.name)\n")
            }
            let total = entries.map(\.size).reduce(0, +)
            console.err("\(entries.count) saved prompt\(entries.count == 1 ? "" : "s"), \(Self.size(total)), in \(directory).")
        }
        return .success
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : String(format: "%.1f KiB", Double(bytes) / 1024)
    }

    static func age(_ seconds: TimeInterval) -> String {
        switch max(seconds, 0) {
        case ..<120: "\(Int(seconds)) s ago"
        case ..<7200: "\(Int(seconds / 60)) min ago"
        case ..<172_800: "\(Int(seconds / 3600)) h ago"
        default: "\(Int(seconds / 86400)) days ago"
        }
    }
}
