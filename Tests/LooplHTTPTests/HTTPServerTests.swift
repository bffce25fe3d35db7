import Foundation
import LooplHTTP
import Testing

/// Starts a server on 127.0.0.1 with a free port.
func startServer(_ limits: HTTPLimits = .init(), errorBody: @escaping HTTPServer.ErrorBody = HTTPServer.plainErrorBody,
                 handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
    try HTTPServer.listen(host: "127.0.0.1", port: 0, limits: limits, errorBody: errorBody, handler: handler)
}

/// Answers with the method, path, query and body it got.
@Sendable func echo(_ request: HTTPRequest, _ responder: HTTPResponder) async {
    let text = "\(request.method) \(request.path) \(request.query ?? "-") \(String(decoding: request.body, as: UTF8.self))"
    responder.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
}

/// Requests and answers over real sockets: keep-alive, streams, and the server's own error answers.
@Suite struct HTTPServerTests {
    @Test func oneConnectionServesSeveralRequestsAndOutlivesAStream() async throws {
        let server = try startServer { request, responder in
            if request.path == "/stream" {
                responder.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
                responder.send(Array("one".utf8))
                responder.finish()
            } else {
                await echo(request, responder)
            }
        }
        let client = try TestClient(port: server.port)
        let first = try await client.exchange("GET /a?x=1 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(first.status == 200)
        #expect(first.text == "GET /a x=1 ")
        #expect(first.headers["Connection"] == "keep-alive")
        let second = try await client.exchange("POST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(second.text == "POST /b - hello")
        let stream = try await client.exchange("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(stream.chunks == [Array("one".utf8)])
        let third = try await client.exchange("GET /c HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(third.text == "GET /c - ")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        client.write("GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET /3 HTTP/1.1\r\n\r\n")
        #expect(try await client.readResponse().text == "GET /1 - ")
        #expect(try await client.readResponse().text == "POST /2 - hi")
        #expect(try await client.readResponse().text == "GET /3 - ")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func connectionCloseIsHonouredAndEchoed() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        let response = try await client.exchange("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(response.headers["Connection"] == "close")
        #expect(await client.isClosed())
        let old = try TestClient(port: server.port)
        #expect(try await old.exchange("GET / HTTP/1.0\r\n\r\n").headers["Connection"] == "close")
        #expect(await old.isClosed())
        let kept = try TestClient(port: server.port)
        #expect(try await kept.exchange("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").headers["Connection"] == "keep-alive")
        #expect(try await kept.exchange("GET /again HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").text == "GET /again - ")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aStreamArrivesChunkByChunk() async throws {
        let server = try startServer { _, responder in
            responder.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
            for piece in ["data: a\n\n", "data: bb\n\n", "data: [DONE]\n\n"] {
                responder.send(Array(piece.utf8))
                try? await Task.sleep(for: .milliseconds(30))
            }
            responder.finish()
        }
        let client = try TestClient(port: server.port)
        client.write("GET /s HTTP/1.1\r\n\r\n")
        let (status, headers) = try await client.readHead()
        #expect(status == 200)
        #expect(headers["Transfer-Encoding"] == "chunked")
        #expect(headers["Content-Length"] == nil)
        #expect(headers["Content-Type"] == "text/event-stream")
        #expect(headers["Access-Control-Allow-Origin"] == nil)
        #expect(try await client.readChunk() == Array("data: a\n\n".utf8))
        #expect(try await client.readChunk() == Array("data: bb\n\n".utf8))
        #expect(try await client.readChunk() == Array("data: [DONE]\n\n".utf8))
        #expect(try await client.readChunk() == [])
        await server.shutdown(grace: .seconds(1))
    }

    @Test func anIdleStreamSendsItsKeepAliveBytes() async throws {
        let server = try startServer { _, responder in
            responder.startStream(status: 200, headers: [], keepAlive: (.milliseconds(100), Array(": ping\n\n".utf8)))
            try? await Task.sleep(for: .milliseconds(450))
            responder.send(Array("data: x\n\n".utf8))
            responder.finish()
        }
        let client = try TestClient(port: server.port)
        let response = try await client.exchange("GET / HTTP/1.1\r\n\r\n")
        let chunks = try #require(response.chunks).map { String(decoding: $0, as: UTF8.self) }
        #expect(chunks.last == "data: x\n\n")
        #expect(chunks.dropLast().allSatisfy { $0 == ": ping\n\n" })
        #expect(chunks.count >= 3, "\(chunks)")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aHeadRequestGetsTheHeadersAlone() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        client.write("HEAD /h HTTP/1.1\r\n\r\n")
        let (status, headers) = try await client.readHead()
        #expect(status == 200)
        #expect(headers["Content-Length"] == "10", "the length of \"HEAD /h - \"")
        #expect(try await client.exchange("GET /next HTTP/1.1\r\n\r\n").text == "GET /next - ", "no body bytes came before")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aHandlerThatDoesNotAnswerGets500() async throws {
        let server = try startServer { _, _ in }
        let client = try TestClient(port: server.port)
        let response = try await client.exchange("GET /nothing HTTP/1.1\r\n\r\n")
        #expect(response.status == 500)
        #expect(response.text.contains("GET /nothing"))
        #expect(try await client.exchange("GET /nothing HTTP/1.1\r\n\r\n").status == 500, "the connection stays usable")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func everyAnswerCarriesTheServersHeaders() async throws {
        let server = try HTTPServer.listen(host: "127.0.0.1", port: 0, headers: [("X-Server", "yes")]) { request, responder in
            if request.path == "/stream" {
                responder.startStream(status: 200, headers: [])
                responder.finish()
            } else if request.path == "/answer" {
                await echo(request, responder)
            }
        }
        let client = try TestClient(port: server.port)
        for path in ["/answer", "/stream", "/silent"] {
            #expect(try await client.exchange("GET \(path) HTTP/1.1\r\n\r\n").headers["X-Server"] == "yes", "\(path)")
        }
        let malformed = try TestClient(port: server.port)
        #expect(try await malformed.exchange("GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n").headers["X-Server"] == "yes", "the server's 400")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aChunkedRequestGets411() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        let response = try await client.exchange("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(response.status == 411)
        #expect(response.headers["Connection"] == "close")
        #expect(response.text.contains("Content-Length"))
        #expect(await client.isClosed())
        await server.shutdown(grace: .seconds(1))
    }

    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        client.write("POST /up HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try await client.readLine() == "HTTP/1.1 100 Continue")
        #expect(try await client.readLine() == "")
        client.write("hello")
        #expect(try await client.readResponse().text == "POST /up - hello")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aBodyOverTheLimitGets413() async throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1000
        let server = try startServer(limits, errorBody: { status, message in
            ("application/json", Array("{\"error\":{\"code\":\(status),\"message\":\"\(message)\"}}".utf8))
        }, handler: echo)
        let declared = try TestClient(port: server.port)
        declared.write("POST / HTTP/1.1\r\nContent-Length: 20000\r\nExpect: 100-continue\r\n\r\n")
        let refused = try await declared.readResponse()
        #expect(refused.status == 413, "no 100 Continue for a body over the limit")
        #expect(refused.headers["Content-Type"] == "application/json")
        #expect(refused.text.contains("The request body is 20000 bytes; the limit is 1000 bytes."))
        #expect(await declared.isClosed())
        let sent = try TestClient(port: server.port)
        sent.write("POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "x", count: 5000))
        #expect(try await sent.readResponse().status == 413)
        #expect(await sent.isClosed())
        let fits = try TestClient(port: server.port)
        #expect(try await fits.exchange("POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "y", count: 1000)).status == 200)
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aHeaderFloodGets431() async throws {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 20
        limits.maxHeaderBytes = 4096
        let server = try startServer(limits, handler: echo)
        let many = try TestClient(port: server.port)
        let fields = (0..<21).map { "X-\($0): v\r\n" }.joined()
        #expect(try await many.exchange("GET / HTTP/1.1\r\n\(fields)\r\n").status == 431)
        #expect(await many.isClosed())
        let long = try TestClient(port: server.port)
        let response = try await long.exchange("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 5000))\r\n\r\n")
        #expect(response.status == 431)
        #expect(response.text.contains("4096"))
        let endless = try TestClient(port: server.port)
        endless.write("GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 1000))
        #expect(try await endless.readResponse().status == 431, "answered before the head ends")
        let within = try TestClient(port: server.port)
        #expect(try await within.exchange("GET / HTTP/1.1\r\n\((0..<20).map { "X-\($0): v\r\n" }.joined())\r\n").status == 200)
        await server.shutdown(grace: .seconds(1))
    }

    @Test(arguments: [
        ("HELLO\r\n\r\n", 400), ("GET /\r\n\r\n", 400), ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: caf\u{E9}\r\n\r\n", 200), ("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab", 400), ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\n X: folded\r\n\r\n", 400), ("GET nopath HTTP/1.1\r\n\r\n", 400),
    ])
    func malformedRequestsGetTheirStatus(_ request: String, _ status: Int) async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        let response = try await client.exchange(request)
        #expect(response.status == status, "\(request.debugDescription): \(response.text)")
        if status != 200 { #expect(await client.isClosed()) }
        await server.shutdown(grace: .seconds(1))
    }

    @Test func badUTF8InTheHeadGets400() async throws {
        let server = try startServer(handler: echo)
        let client = try TestClient(port: server.port)
        client.write(Array("GET / HTTP/1.1\r\nX-Name: ".utf8) + [0xC3, 0x28, 0xFF] + Array("\r\n\r\n".utf8))
        let response = try await client.readResponse()
        #expect(response.status == 400)
        #expect(response.text.contains("UTF-8"))
        #expect(await client.isClosed())
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aPortInUseIsReported() async throws {
        let server = try startServer(handler: echo)
        #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: server.port)) {
            try HTTPServer.listen(host: "127.0.0.1", port: server.port) { _, _ in }
        }
        #expect(HTTPServerError.addressInUse(host: "127.0.0.1", port: server.port).message.contains("already in use"))
        #expect(throws: HTTPServerError.invalidHost("example.invalid")) {
            try HTTPServer.listen(host: "example.invalid", port: 0) { _, _ in }
        }
        await server.shutdown(grace: .seconds(1))
    }
}
