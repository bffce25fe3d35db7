import Foundation
import Loopl
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One piece of an HTTP response as it arrives: the status first, then the body's bytes.
package enum HTTPPart: Sendable {
    /// The status and the headers, their names in lowercase.
    case status(Int, headers: [String: String])
    case body([UInt8])
}

/// A response that arrives piece by piece, and a way to close its connection.
package struct HTTPResponseStream: Sendable {
    package let parts: AsyncThrowingStream<HTTPPart, any Error>
    package let cancel: @Sendable () -> Void
    /// The reader's back-pressure, when it has one: consumers give back a credit per part taken.
    package var credit: ChunkCredit?

    package init(parts: AsyncThrowingStream<HTTPPart, any Error>, cancel: @escaping @Sendable () -> Void, credit: ChunkCredit? = nil) {
        self.parts = parts
        self.cancel = cancel
        self.credit = credit
    }

    /// Sends `request`: `http` over Loopl's own socket client, `https` through URLSession.
    ///
    /// URLSession on Linux spends about half a core of the host while a response streams, which
    /// slows down a server that shares the machine's cores; the socket client spends next to none.
    package static func open(_ request: URLRequest) -> HTTPResponseStream {
        request.url?.scheme?.lowercased() == "https" ? URLSessionTransport.open(request) : SocketTransport.open(request)
    }

    /// The largest body ``collect(limit:)`` reads by default: 1 MiB, for the small endpoints.
    package static let collectLimit = 1024 * 1024

    /// Reads the whole response: its status and body. A body over `limit` bytes closes the
    /// connection and is a `protocolViolation` error whose message ends with `advice`.
    package func collect(limit: Int = HTTPResponseStream.collectLimit,
                         advice: String = "Check the URL.") async throws -> (status: Int, body: [UInt8]) {
        var status = 0
        var body: [UInt8] = []
        for try await part in parts {
            credit?.release()
            switch part {
            case .status(let code, _): status = code
            case .body(let bytes):
                guard body.count + bytes.count <= limit else {
                    cancel()
                    throw LooplError(.protocolViolation, "The server sent a body larger than \(limit / 1024 / 1024) MiB to a request that expects a small answer. \(advice)")
                }
                body += bytes
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
