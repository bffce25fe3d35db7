import Foundation
import Loopl

/// One running MCP server process: the responses it sends in a ``Mailbox``, and a way to send.
///
/// Every line the server writes is checked (size, UTF-8, JSON, JSON-RPC); the first bad one ends
/// the mailbox with a violation and the server is terminated. Its requests (`ping` and the rest)
/// are answered here, and its notifications go to `onNotification`, so the mailbox holds only
/// responses.
final class MCPConnection: RPCChild, MCPTransport {
    let child: ChildProcess
    let mailbox = Mailbox()
    let serverName: String

    private static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Starts the server. Throws `processFailed` when it cannot be started.
    init(_ config: MCPServerConfig, onNotification: @escaping @Sendable (String, JSONValue) -> Void) throws {
        Self.ignoreBrokenPipe
        serverName = config.name
        let environment = ChildEnvironment.minimal(inherit: config.inheritEnv, set: config.environment)
        if let directory = config.directory {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
                throw LooplError(.processFailed, "MCP server '\(config.name)': its cwd \(directory) is not a folder.")
            }
        }
        do {
            let executable = try ChildProcess.executable(config.command, searchPath: environment["PATH"], directory: config.directory)
            child = try ChildProcess(executable: executable, arguments: config.arguments, environment: environment,
                                     currentDirectory: config.directory, output: .stream)
        } catch let error as LooplError {
            throw LooplError(.processFailed, "MCP server '\(config.name)' cannot start: \(error.message)")
        }
        let child = self.child
        let mailbox = self.mailbox
        mailbox.read(from: child) { piece in Self.route(piece, mailbox: mailbox, child: child, onNotification: onNotification) }
    }

    /// Checks one line; answers the server's requests, passes on its notifications, and queues
    /// responses. Returns what is wrong with the line, if anything.
    private static func route(_ piece: LineSplitter.Piece, mailbox: Mailbox, child: ChildProcess,
                              onNotification: @Sendable (String, JSONValue) -> Void) -> String? {
        let message: RPCMessage
        switch Mailbox.message(in: piece) {
        case .failure(let problem): return problem.reason
        case .success(nil): return nil
        case .success(let read?): message = read
        }
        switch message {
        case .request(let id, let method, _):
            try? child.write(RPCMessage.response(id: id, result: reply(toServerRequest: method)).line)
        case .notification(let method, let params):
            onNotification(method, params)
        case .response:
            guard case .line(let bytes) = piece, mailbox.put(message, bytes: bytes.count) else {
                return "it wrote more than \(mailbox.limit / 1024 / 1024) MiB of responses that the host has not read yet"
            }
        }
        return nil
    }

    var who: String { "MCP server '\(serverName)'" }

    var sessionLost: Bool { false }

    func send(_ message: RPCMessage, within timeout: Duration) async throws { try send(message) }

    func agreed(on revision: String) {}

    /// A server that exited as it started is a `processFailed` error about its command.
    func startFailure(_ error: any Error) async -> any Error {
        let status = await child.waitForExit(timeout: .milliseconds(500))
        if status != nil, (error as? LooplError)?.code == .processFailed {
            return LooplError(.processFailed, "MCP server '\(serverName)' exited as it started; check its command, args and env.\(details)")
        }
        return error
    }

    func failure(_ end: MailboxEnd, during method: String) -> LooplError {
        switch end {
        case .exited:
            LooplError(.processFailed, "MCP server '\(serverName)' exited during \(method); it is restarted on its next call.\(details)")
        case .violation(let problem):
            LooplError(.protocolViolation, "MCP server '\(serverName)' broke the protocol during \(method): \(problem). It is restarted on its next call.\(details)")
        case .stopped:
            LooplError(.processFailed, "MCP server '\(serverName)' was stopped during \(method).")
        }
    }

    /// Ends the server as the specification says: close its input, wait, SIGTERM, then SIGKILL.
    func shutdown(wait: Duration = .seconds(2)) async {
        child.closeInput()
        _ = await child.waitForExit(timeout: wait)
        mailbox.finish(.stopped)
        await child.terminate(grace: .seconds(2))
    }
}
