import Foundation
import Loopl

/// One running worker process: its JSON-RPC messages in a ``Mailbox``, and a way to send.
///
/// Every line the worker writes is checked (size, UTF-8, JSON, JSON-RPC); the first bad one ends
/// the mailbox with a violation and the worker is terminated.
final class WorkerConnection: RPCChild {
    let child: ChildProcess
    let mailbox = Mailbox()
    /// The command, as shown in messages.
    let commandText: String

    private static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts `command`. Throws `processFailed` when it cannot be started.
    init(command: [String], environment: [String: String]? = nil) throws {
        Self.ignoreBrokenPipe
        guard let first = command.first else {
            throw LooplError(.invalidConfiguration, "The stdio backend's command is empty.")
        }
        commandText = command.joined(separator: " ")
        child = try ChildProcess(executable: try ChildProcess.executable(first), arguments: Array(command.dropFirst()),
                                 environment: environment, output: .stream)
        let child = self.child
        let mailbox = self.mailbox
        mailbox.read(from: child) { piece in mailbox.deliver(piece) }
    }

    var who: String { "the worker (\(commandText))" }

    /// Ends the worker: SIGTERM, then SIGKILL after `grace`.
    func stop(grace: Duration = .seconds(2)) async {
        mailbox.finish(.stopped)
        await child.terminate(grace: grace)
    }
}
