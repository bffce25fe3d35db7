import LooplHTTP
import Testing

/// The request parser on its own: events, limits and the split-independence the fuzzer checks.
@Suite struct HTTPRequestParserTests {
    static func events(_ text: String, limits: HTTPLimits = .init(), piece: Int? = nil) -> [HTTPParseEvent] {
        var parser = HTTPRequestParser(limits: limits)
        var events: [HTTPParseEvent] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + (piece ?? bytes.count))
            parser.feed(bytes[start..<end])
            start = end
            while case let event = parser.next(), event != .needMore {
                events.append(event)
                if case .failure = event { return events }
            }
        }
        return events
    }

    @Test func aRequestIsReadWithPathQueryHeadersAndBody() throws {
        let events = Self.events("POST /v1/x?y=1&z HTTP/1.1\r\nHost: a\r\ncontent-length: 3\r\nX-Two: 1\r\nx-two: 2\r\n\r\nabc")
        guard case .request(let request) = try #require(events.first) else {
            Issue.record("not a request: \(events)")
            return
        }
        #expect(request.method == "POST")
        #expect(request.target == "/v1/x?y=1&z")
        #expect(request.path == "/v1/x")
        #expect(request.query == "y=1&z")
        #expect(request.headers["Content-Length"] == "3")
        #expect(request.headers.values("X-TWO") == ["1", "2"])
        #expect(request.body == Array("abc".utf8))
        #expect(events.count == 1)
    }

    @Test func anyPieceSizeGivesTheSameEvents() {
        let text = "\r\nGET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\nbodyGET /c HTTP/1.0\n\n"
            + "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"
        let whole = Self.events(text)
        #expect(whole.count == 5, "\(whole)")
        #expect(whole[1] == .expectsContinue)
        if case .failure(let error) = whole.last { #expect(error.status == 400) } else { Issue.record("no failure: \(whole)") }
        for piece in 1...9 { #expect(Self.events(text, piece: piece) == whole, "pieces of \(piece)") }
    }

    @Test func limitsGiveTheirStatuses() {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 100
        limits.maxHeaderCount = 2
        limits.maxBodyBytes = 10
        let cases: [(String, Int)] = [
            ("GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 200))\r\n\r\n", 431),
            ("GET / HTTP/1.1\r\n\(String(repeating: "a", count: 200))", 431),
            ("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 431),
            ("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 413),
            ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
            ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 400),
            ("GET / HTTP/3.0\r\n\r\n", 505),
            ("GET  / HTTP/1.1\r\n\r\n", 400),
        ]
        for (text, status) in cases {
            let last = Self.events(text, limits: limits, piece: 7).last
            guard case .failure(let error) = last else {
                Issue.record("\(text.debugDescription): \(String(describing: last))")
                continue
            }
            #expect(error.status == status, "\(text.debugDescription): \(error)")
            #expect(Self.events(text, limits: limits) == [.failure(error)])
        }
        #expect(Self.events("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\nabcde", limits: limits).count == 1)
    }

    @Test func idleAndBodyStatesAreReported() {
        var parser = HTTPRequestParser()
        #expect(parser.isIdle)
        parser.feed(Array("POST / HTTP/1.1\r\nContent-Length: 2\r\n".utf8))
        #expect(parser.next() == .needMore)
        #expect(!parser.isIdle && !parser.isReadingBody)
        parser.feed(Array("\r\na".utf8))
        #expect(parser.next() == .needMore)
        #expect(parser.isReadingBody)
        parser.feed(Array("b".utf8))
        if case .request(let request) = parser.next() { #expect(request.body == Array("ab".utf8)) } else { Issue.record("no request") }
        #expect(parser.isIdle)
    }

    @Test func keepAliveFollowsVersionAndConnection() {
        #expect(HTTPRequest(method: "GET", target: "/").wantsKeepAlive)
        #expect(!HTTPRequest(method: "GET", target: "/", headers: ["Connection": "Close"]).wantsKeepAlive)
        #expect(!HTTPRequest(method: "GET", target: "/", version: .http1_0).wantsKeepAlive)
        #expect(HTTPRequest(method: "GET", target: "/", version: .http1_0, headers: ["Connection": "keep-alive"]).wantsKeepAlive)
        #expect(HTTPRequest(method: "GET", target: "http://h:1/p?q=2").path == "/p")
        #expect(HTTPRequest(method: "GET", target: "http://h:1?q=2").query == "q=2")
    }
}
