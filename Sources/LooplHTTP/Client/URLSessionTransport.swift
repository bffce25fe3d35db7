import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP through URLSession, for `https` servers: a data delegate that passes the response on as
/// it arrives (`URLSession.bytes` does not exist on Linux).
final class URLSessionTransport: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<HTTPPart, any Error>.Continuation

    private init(continuation: AsyncThrowingStream<HTTPPart, any Error>.Continuation) {
        self.continuation = continuation
    }

    static func open(_ request: URLRequest) -> HTTPResponseStream {
        let (stream, continuation) = AsyncThrowingStream<HTTPPart, any Error>.makeStream()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = request.timeoutInterval
        configuration.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: configuration, delegate: URLSessionTransport(continuation: continuation),
                                 delegateQueue: queue)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in task.cancel() }
        task.resume()
        session.finishTasksAndInvalidate()
        return HTTPResponseStream(parts: stream, cancel: { task.cancel() })
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        var headers = HTTPHeaders()
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers.append(name: name, value: value) }
        }
        continuation.yield(.status(http?.statusCode ?? 0, headers: headers))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.body(Array(data)))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error else { return continuation.finish() }
        switch (error as? URLError)?.code {
        case .cancelled?: continuation.finish(throwing: HTTPTransportError.cancelled)
        case .timedOut?: continuation.finish(throwing: HTTPTransportError.timedOut)
        case .networkConnectionLost?: continuation.finish(throwing: HTTPTransportError.connectionLost)
        default: continuation.finish(throwing: HTTPTransportError.cannotConnect(error.localizedDescription))
        }
    }
}
