import Foundation
import Loopl

/// The events of a Server-Sent Events response, read as they arrive: the `data` of each.
///
/// A status other than 2xx ends the sequence with ``HTTPStatusError`` carrying the body.
struct EventStream: AsyncSequence {
    typealias Element = String
    let response: HTTPResponseStream

    func makeAsyncIterator() -> Iterator {
        Iterator(response: response)
    }

    struct Iterator: AsyncIteratorProtocol {
        var parts: AsyncThrowingStream<HTTPPart, any Error>.AsyncIterator
        let response: HTTPResponseStream
        private var decoder = SSEDecoder()
        private var pending: [String] = []
        private var status = 0
        private var errorBody: [UInt8] = []
        private var ended = false

        init(response: HTTPResponseStream) {
            self.response = response
            parts = response.parts.makeAsyncIterator()
        }

        mutating func next() async throws -> String? {
            while pending.isEmpty {
                guard !ended else { return nil }
                let next = try await parts.next()
                response.credit?.release()
                guard let part = next else {
                    ended = true
                    guard (200..<300).contains(status) else { throw HTTPStatusError(status: status, body: Data(errorBody)) }
                    return decoder.finish()
                }
                switch part {
                case .status(let code):
                    status = code
                case .body(let bytes):
                    if (200..<300).contains(status) {
                        pending += decoder.feed(bytes)
                        if let violation = decoder.violation {
                            ended = true
                            response.cancel()
                            throw LooplError(.protocolViolation, "The server broke the streaming protocol: \(violation). Check that the URL points at an OpenAI-compatible server.")
                        }
                    } else if errorBody.count < 65536 {
                        errorBody += bytes
                    }
                }
            }
            return pending.removeFirst()
        }
    }
}

/// An HTTP answer whose status is not 2xx, with its body.
struct HTTPStatusError: Error, Sendable {
    let status: Int
    let body: Data
}
