import Foundation
import Loopl

/// The address of a `ggml-rpc-server` worker, `host:port` (`[::1]:50052` for IPv6), as llama-server's
/// `--rpc` takes it.
struct RPCEndpoint: Sendable, Hashable, CustomStringConvertible {
    let host: String
    let port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port`; nil when it is not one.
    init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(","), !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// True for an address on this machine only (127.0.0.0/8, ::1, localhost).
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Nil when something accepts a TCP connection at the address within `timeout`, else why not.
    func refusal(timeout: Duration = .seconds(2)) -> String? {
        let connection = SocketTransport.Connection()
        defer { connection.close() }
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        do {
            try connection.connect(host: host, port: port, timeoutMs: milliseconds)
            return nil
        } catch .cannotConnect(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }
}
