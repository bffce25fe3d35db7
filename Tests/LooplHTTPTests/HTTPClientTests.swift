import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
@testable import LooplHTTP
import Synchronization
import Testing

/// The HTTP client: SSE and chunked decoding, and the socket transport's body framings, failures
/// and cancellation.
@Suite struct HTTPClientTests {
    static let sse = ": keep-alive\r\ndata: {\"a\":1}\r\n\r\ndata: line one\ndata: line two\n\nevent: x\ndata:[DONE]\n\n"

    @Test func sseEventsDoNotDependOnHowTheBytesAreSplit() {
        let bytes = Array(Self.sse.utf8)
        var whole = SSEDecoder()
        let expected = whole.feed(bytes)
        #expect(expected == [#"{"a":1}"#, "line one\nline two", "[DONE]"])
        for cut in 1..<bytes.count {
            var decoder = SSEDecoder()
            #expect(decoder.feed(bytes[..<cut]) + decoder.feed(bytes[cut...]) == expected, "cut at \(cut)")
        }
    }

    @Test func sseEventWithoutItsBlankLineComesOutAtTheEnd() {
        var decoder = SSEDecoder()
        #expect(decoder.feed(Array("data: a\n\ndata: tail".utf8)) == ["a"])
        #expect(decoder.finish() == "tail")
        #expect(decoder.finish() == nil)
    }

    @Test func chunkedBodiesDecodeInEverySplit() throws {
        let bytes = Array("4\r\nWiki\r\n5;name=x\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: t\r\n\r\n".utf8)
        for cut in 0...bytes.count {
            var decoder = ChunkedDecoder()
            let payload = try decoder.feed(bytes[..<cut]) + decoder.feed(bytes[cut...])
            #expect(String(decoding: payload, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
            #expect(decoder.isComplete)
        }
    }

    @Test(arguments: ["zz\r\n", "-5\r\nabc", "+5\r\nabcde\r\n", "3\r\nabcd\r\n", "\r\n"])
    func malformedChunksAreErrors(_ text: String) {
        var decoder = ChunkedDecoder()
        #expect(throws: HTTPTransportError.self) { _ = try decoder.feed(Array(text.utf8)) }
    }

    static func request(_ url: URL, timeout: TimeInterval = 5) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        return request
    }

    @Test func bodiesInEachFraming() async throws {
        let answers = [
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
            "HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nabcdeIGNORED",
            "HTTP/1.1 200 OK\r\n\r\nabcde",
        ]
        for (index, answer) in answers.enumerated() {
            let server = try RawServer(answer: answer)
            defer { server.stop() }
            let (status, body) = try await SocketTransport.open(Self.request(server.url)).collect()
            #expect(status == (index == 1 ? 201 : 200))
            #expect(String(decoding: body, as: UTF8.self) == "abcde")
            #expect(server.requests.first.map { "\($0.method) \($0.target) \($0.version)" } == "POST / HTTP/1.1")
            #expect(server.requests.first?.body == Array("{}".utf8))
        }
    }

    @Test func aBodyCutShortIsAnError() async throws {
        for answer in ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
                       "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "HTTP/1.1 200 O"] {
            let server = try RawServer(answer: answer)
            defer { server.stop() }
            await #expect(throws: HTTPTransportError.self) { _ = try await SocketTransport.open(Self.request(server.url)).collect() }
        }
    }

    @Test func somethingThatIsNotHTTPIsMalformed() async throws {
        let server = try RawServer(answer: "SSH-2.0-OpenSSH\r\n\r\n")
        defer { server.stop() }
        do {
            _ = try await SocketTransport.open(Self.request(server.url)).collect()
            Issue.record("expected an error")
        } catch HTTPTransportError.malformed {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func nothingListeningCannotConnect() async throws {
        let server = try RawServer(answer: nil)
        server.stop()
        do {
            _ = try await SocketTransport.open(Self.request(server.url)).collect()
            Issue.record("expected an error")
        } catch HTTPTransportError.cannotConnect(let reason) {
            #expect(reason.lowercased().contains("refused"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aSilentServerTimesOutAndCancelIsPrompt() async throws {
        let server = try RawServer(answer: nil)
        defer { server.stop() }
        let url = server.url
        await #expect(throws: HTTPTransportError.timedOut) { _ = try await SocketTransport.open(Self.request(url, timeout: 0.3)).collect() }

        let response = SocketTransport.open(Self.request(url, timeout: 60))
        let cancelled = Mutex<ContinuousClock.Instant?>(nil)
        Task {
            try await Task.sleep(for: .milliseconds(200))
            cancelled.withLock { $0 = .now }
            response.cancel()
        }
        await #expect(throws: HTTPTransportError.cancelled) { _ = try await response.collect() }
        // Not before the cancel (the server never answers), and promptly after it.
        let ended = ContinuousClock.now
        let at = try #require(cancelled.withLock { $0 }, "the request ended before it was cancelled")
        #expect(ended - at < .milliseconds(500), "the request ended \(ended - at) after its cancel")
    }
}
