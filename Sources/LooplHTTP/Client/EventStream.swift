import Foundation

/// The events of a Server-Sent Events response, read as they arrive: the `data` of each.
///
/// A status other than 2xx ends the sequence with ``HTTPStatusError`` carrying the body.
package struct EventStream: AsyncSequence {
    package typealias Element = String
    let response: HTTPResponseStream
    /// Ends the message of a broken stream: what the user should check.
    let advice: String

    package init(response: HTTPResponseStream, advice: String = "Check the URL.") {
        self.response = response
        self.advice = advice
    }

    package func makeAsyncIterator() -> Iterator {
        Iterator(response: response, advice: advice)
    }

    package struct Iterator: AsyncIteratorProtocol {
        var parts: AsyncThrowingStream<HTTPPart, any Error>.AsyncIterator
        let response: HTTPResponseStream
        let advice: String
        private var decoder = SSEDecoder()
        private var pending: [String] = []
        private var status = 0
        private var errorBody: [UInt8] = []
        private var ended = false

        init(response: HTTPResponseStream, advice: String) {
            self.response = response
            self.advice = advice
            parts = response.parts.makeAsyncIterator()
        }

        package mutating func next() async throws -> String? {
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
                case .status(let code, _):
                    status = code
                case .body(let bytes):
                    if (200..<300).contains(status) {
                        pending += decoder.feed(bytes)
                        if let violation = decoder.violation {
                            ended = true
                            response.cancel()
                            throw HTTPTransportError.violation("The server broke the streaming protocol: \(violation). \(advice)")
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
package struct HTTPStatusError: Error, Sendable {
    package let status: Int
    package let body: Data

    package init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}
