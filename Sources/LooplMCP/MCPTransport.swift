import Loopl

/// How an ``MCPClient`` reaches its server: a process on stdio (``MCPConnection``) or a server
/// over HTTP (``MCPHTTPConnection``). Either answers the server's requests and passes on its
/// notifications itself, so that its ``mailbox`` holds only responses.
protocol MCPTransport: AnyObject, Sendable {
    var mailbox: Mailbox { get }
    /// True while messages can still be sent and answered.
    var isUsable: Bool { get }
    /// True once the server said it no longer knows the session: a new one may be started at once.
    var sessionLost: Bool { get }
    /// A sentence to append to errors: a process's exit status and last stderr lines.
    var details: String { get }
    /// Sends one message; `timeout` bounds waiting for the server to take it.
    func send(_ message: RPCMessage, within timeout: Duration) async throws
    /// The handshake agreed on `revision`.
    func agreed(on revision: String)
    /// The error to report for `error`, which ended the start.
    func startFailure(_ error: any Error) async -> any Error
    /// The error for a mailbox that ended during `method`.
    func failure(_ end: MailboxEnd, during method: String) -> LooplError
    /// Ends the connection; `wait` is how long the server has to end on its own.
    func shutdown(wait: Duration) async
}

extension MCPTransport {
    func shutdown() async { await shutdown(wait: .seconds(2)) }
}

/// What the client answers to a server's request: it offers no capabilities, so it answers `ping` alone.
func reply(toServerRequest method: String) -> Result<JSONValue, RPCError> {
    method == "ping" ? .success([:]) : .failure(RPCError(code: RPCError.methodNotFound, message: "The client does not support \(method)."))
}
