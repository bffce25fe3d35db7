import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One piece of an HTTP response as it arrives: the status first, then the body's bytes.
enum HTTPPart: Sendable {
    case status(Int)
    case body([UInt8])
}

/// A response that arrives piece by piece, and a way to close its connection.
struct HTTPResponseStream: Sendable {
    let parts: AsyncThrowingStream<HTTPPart, any Error>
    let cancel: @Sendable () -> Void

    /// Sends `request`: `http` over Loopl's own socket client, `https` through URLSession.
    ///
    /// URLSession on Linux spends about half a core of the host while a response streams, which
    /// slows down a server that shares the machine's cores; the socket client spends next to none.
    static func open(_ request: URLRequest) -> HTTPResponseStream {
        request.url?.scheme?.lowercased() == "https" ? URLSessionTransport.open(request) : SocketTransport.open(request)
    }

    /// Reads the whole response: its status and body.
    func collect() async throws -> (status: Int, body: [UInt8]) {
        var status = 0
        var body: [UInt8] = []
        for try await part in parts {
            switch part {
            case .status(let code): status = code
            case .body(let bytes): body += bytes
            }
        }
        return (status, body)
    }
}

/// Why an HTTP exchange failed below the level of HTTP statuses.
package enum HTTPTransportError: Error, Sendable, Equatable {
    /// No connection could be made: the reason from the system.
    case cannotConnect(String)
    /// Nothing arrived for longer than the request's timeout.
    case timedOut
    /// The server closed the connection before the response was complete.
    case connectionLost
    /// The server's bytes are not HTTP/1.1.
    case malformed(String)
    /// The caller closed the connection.
    case cancelled
}
