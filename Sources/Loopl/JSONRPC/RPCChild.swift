/// A child process that speaks JSON-RPC lines (a stdio worker, an MCP server): its process and
/// the mailbox its output is read into.
package protocol RPCChild: Sendable {
    var child: ChildProcess { get }
    var mailbox: Mailbox { get }
    /// Who the child is, in a sentence: "the worker (loopl worker)".
    var who: String { get }
}

extension RPCChild {
    /// Sends one message; a child that stopped reading its input is a `processFailed` error.
    package func send(_ message: RPCMessage) throws {
        do { try child.write(message.line) } catch {
            throw LooplError(.processFailed, "Cannot write to \(who): it stopped reading its input.\(details)")
        }
    }

    /// The child's exit status and last stderr lines, as a sentence to append to an error.
    package var details: String { child.details }

    /// True while the child runs and has broken nothing. /proc is asked too: a child that died
    /// a moment ago has no exit status until its reaper has read its last words, and a request
    /// sent to it then would fail instead of starting a new one.
    package var isUsable: Bool { mailbox.end == nil && child.exitStatus == nil && ProcessWatch.isRunning(child.pid) }
}
