import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One piece of an HTTP response as it arrives: the status first, then the body's bytes.
package enum HTTPPart: Sendable {
    /// The status and the headers.
    case status(Int, headers: HTTPHeaders)
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
    /// connection and is ``HTTPTransportError/violation(_:)`` with a message that ends with `advice`.
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
                    throw HTTPTransportError.violation("The server sent a body larger than \(limit / 1024 / 1024) MiB to a request that expects a small answer. \(advice)")
                }
                body += bytes
            }
        }
        return (status, body)
    }
}
