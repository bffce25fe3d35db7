import Foundation
import Loopl
import LooplHTTP
#if canImport(Glibc)
import Glibc
#endif

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

    /// True for an address on this machine only: `localhost`, or an address literal in 127.0.0.0/8,
    /// `::1`, or `::ffff:127.x.x.x`. A name that only starts like one (`127.0.0.1.example.com`) is not.
    var isLoopback: Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// Nil when something accepts a TCP connection at the address within `timeout`, else why not.
    func refusal(timeout: Duration = .seconds(2)) -> String? {
        let connection = SocketConnection()
        defer { connection.close() }
        do {
            try connection.connect(host: host, port: port, timeout: timeout)
            return nil
        } catch .cannotConnect(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }
}
