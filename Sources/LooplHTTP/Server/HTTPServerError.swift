/// Why a server could not start listening.
package enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process (or server) listens on this address already.
    case addressInUse(host: String, port: Int)
    /// The socket could not be made, bound or listened on; `reason` is the system's error text.
    case cannotBind(host: String, port: Int, reason: String)
    /// The host is not an IP address this server can bind.
    case invalidHost(String)

    /// A sentence saying what went wrong and what to do.
    package var message: String {
        switch self {
        case .addressInUse(let host, let port):
            "Port \(port) on \(host) is already in use; stop the process using it or choose another port."
        case .cannotBind(let host, let port, let reason):
            "Cannot listen on \(host):\(port): \(reason)."
        case .invalidHost(let host):
            "'\(host)' is not an IP address to listen on; use 127.0.0.1 (this machine only), 0.0.0.0 (every interface), ::1 or ::."
        }
    }

    /// The message.
    package var description: String { message }
}
