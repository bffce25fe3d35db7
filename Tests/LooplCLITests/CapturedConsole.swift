import LooplTestKit
@testable import LooplCLI
import Synchronization

/// A console that keeps what a command writes.
final class CapturedConsole: Sendable {
    private let buffers = Mutex<(out: String, err: String)>(("", ""))
    var out: String { buffers.withLock { $0.out } }
    var err: String { buffers.withLock { $0.err } }

    var console: Console {
        Console(out: { text in self.buffers.withLock { $0.out += text } },
                err: { text in self.buffers.withLock { $0.err += text } })
    }

    /// Runs `loopl ARGUMENTS` in-process, with a prompt-cache folder of its own.
    static func run(_ arguments: [String]) async -> (status: ExitCode, out: String, err: String) {
        let captured = CapturedConsole()
        let status = await withEnvironment(["LOOPL_PROMPT_CACHE_DIR": freshPromptCacheFolder()]) {
            await CLI.run(arguments, console: captured.console)
        }
        return (status, captured.out, captured.err)
    }
}
