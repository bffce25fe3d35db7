@testable import LooplHTTP
import Testing

/// The one head parser, in both directions: request lines for the server, status lines for the
/// client, with the same line endings, limits and typed errors.
@Suite struct HTTPHeadParserTests {
    /// Every head in `text`, fed `piece` bytes at a time, until the first failure.
    static func heads(_ kind: HTTPHeadParser.Kind, _ text: String, piece: Int = .max,
                      limits: HTTPLimits = .init()) -> [Result<HTTPHead, HTTPParseError>] {
        var parser = HTTPHeadParser(kind, limits: limits)
        var heads: [Result<HTTPHead, HTTPParseError>] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + min(piece, bytes.count))
            parser.feed(bytes[start..<end])
            start = end
            while true {
                switch parser.next() {
                case .success(nil): break
                case .success(let head?):
                    heads.append(.success(head))
                    continue
                case .failure(let error):
                    return heads + [.failure(error)]
                }
                break
            }
        }
        return heads
    }

    @Test func requestAndStatusHeadsComeFromTheSameBytesInAnySplit() throws {
        let request = "POST /v1/x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"
        let status = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\n\r\n"
        let requests = Self.heads(.request, request)
        let statuses = Self.heads(.response, status)
        #expect(try requests.map { try $0.get().line } == [.request(method: .post, target: "/v1/x", version: .http1_1)])
        #expect(try statuses.map { try $0.get().line } == [.status(version: .http1_1, code: 100, reason: "Continue"),
                                                          .status(version: .http1_0, code: 404, reason: "Not Found")])
        #expect(try statuses.last?.get().headers["content-type"] == "text/plain")
        for piece in 1...7 {
            #expect(Self.heads(.request, request, piece: piece) == requests, "pieces of \(piece)")
            #expect(Self.heads(.response, status, piece: piece) == statuses, "pieces of \(piece)")
        }
    }

    /// Bare LF ends lines in both directions, as llama-server (cpp-httplib), nginx and Node take it.
    @Test func bareLineFeedsEndLinesBothWays() throws {
        let request = try #require(Self.heads(.request, "GET /a HTTP/1.1\nHost: h\n\n").first).get()
        #expect(request.line == .request(method: .get, target: "/a", version: .http1_1))
        #expect(request.headers["host"] == "h")
        let status = try #require(Self.heads(.response, "HTTP/1.1 204 No Content\nX-A: 1\r\n\n").first).get()
        #expect(status.line == .status(version: .http1_1, code: 204, reason: "No Content"))
        #expect(status.headers["x-a"] == "1")
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n folded: x\r\n\r\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nNo colon\r\n\r\n", "HTTP/1.1 200 OK\r\nNo colon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", "HTTP/2.0 200 OK\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 70_000))\r\n\r\n",
         "HTTP/1.1 200 OK\r\nX: \(String(repeating: "a", count: 70_000))\r\n\r\n", 431),
    ])
    func malformedHeadsFailAlikeBothWays(request: String, status: String, code: Int) throws {
        for (kind, text) in [(HTTPHeadParser.Kind.request, request), (.response, status)] {
            guard case .failure(let error)? = Self.heads(kind, text, piece: 5).last else {
                Issue.record("\(kind) \(text.prefix(40).debugDescription) was read")
                continue
            }
            #expect(error.status == code, "\(kind): \(error)")
        }
    }

    @Test(arguments: ["SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 600 Odd\r\n\r\n", "ICY 200 OK\r\n\r\n"])
    func whatIsNoStatusLineIsAnError(_ text: String) {
        guard case .failure(let error)? = Self.heads(.response, text).last else {
            Issue.record("\(text.debugDescription) was read")
            return
        }
        #expect(error.status == 400, "\(error)")
    }

    @Test func theBytesAfterAHeadAreItsBody() {
        var parser = HTTPHeadParser(.response)
        parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP".utf8))
        guard case .success(.some) = parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(parser.take(3) == Array("abc".utf8))
        #expect(parser.take() == Array("HTTP".utf8))
        #expect(parser.bufferedCount == 0)
    }
}
