import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import Synchronization

/// A Server-Sent Events response read as it arrives, over a `URLSessionDataDelegate`
/// (`URLSession.bytes` does not exist on Linux).
///
/// Yields the `data` of each event; comment lines (`:` keep-alives) are skipped. A status other
/// than 2xx ends the stream with ``HTTPStatusError`` carrying the body. Ending the consumer's
/// iteration cancels the request, which closes the connection.
final class EventStream: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private let state = Mutex(State())

    private struct State {
        var status = 0
        var errorBody = Data()
        var line: [UInt8] = []
        var data: [String] = []
        var started = false
    }

    private init(continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Sends `request` and streams its events; `cancel` closes the connection.
    static func open(_ request: URLRequest) -> (events: AsyncThrowingStream<String, any Error>, cancel: @Sendable () -> Void) {
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let delegate = EventStream(continuation: continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = request.timeoutInterval
        configuration.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in task.cancel() }
        task.resume()
        session.finishTasksAndInvalidate()
        return (stream, { task.cancel() })
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        state.withLock { $0.status = status }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events = state.withLock { state -> [String] in
            guard (200..<300).contains(state.status) else {
                if state.errorBody.count < 65536 { state.errorBody.append(data) }
                return []
            }
            var events: [String] = []
            for byte in data {
                guard byte == 0x0A else { state.line.append(byte); continue }
                if state.line.last == 0x0D { state.line.removeLast() }
                let line = state.line
                state.line.removeAll(keepingCapacity: true)
                if line.isEmpty {
                    if !state.data.isEmpty { events.append(state.data.joined(separator: "\n")) }
                    state.data.removeAll()
                } else if line.first == UInt8(ascii: ":") {
                    continue
                } else if line.starts(with: Self.dataField) {
                    var value = line.dropFirst(Self.dataField.count)
                    if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
                    state.data.append(String(decoding: value, as: UTF8.self))
                }
            }
            return events
        }
        for event in events { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, body, pending) = state.withLock { state -> (Int, Data, String?) in
            let pending = state.data.isEmpty ? nil : state.data.joined(separator: "\n")
            state.data.removeAll()
            return (state.status, state.errorBody, pending)
        }
        if let error {
            continuation.finish(throwing: error)
        } else if !(200..<300).contains(status) {
            continuation.finish(throwing: HTTPStatusError(status: status, body: body))
        } else {
            if let pending { continuation.yield(pending) }
            continuation.finish()
        }
    }

    private static let dataField = Array("data:".utf8)
}

/// An HTTP answer whose status is not 2xx, with its body.
struct HTTPStatusError: Error, Sendable {
    let status: Int
    let body: Data
}
