import Foundation
import Glibc
import LooplHTTP
import Testing

/// Timeouts, hang-ups, limits and shutdown, over real sockets.
@Suite struct HTTPServerLifecycleTests {
    @Test func aHeadThatNeverCompletesGets408() async throws {
        var limits = HTTPLimits()
        limits.headerTimeout = .milliseconds(300)
        let server = try startServer(limits, handler: echo)
        let client = try TestClient(port: server.port)
        let start = ContinuousClock.now
        client.write("GET / HTTP/1.1\r\nHost: slow\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 408)
        #expect(await client.isClosed())
        #expect(ContinuousClock.now - start < .seconds(4))
        let silent = try TestClient(port: server.port)
        #expect(await silent.isClosed(), "a connection that sends nothing is closed without an answer")
        await server.shutdown(grace: .seconds(1))
    }

    @Test func anIdleKeepAliveConnectionIsClosed() async throws {
        var limits = HTTPLimits()
        limits.idleTimeout = .milliseconds(300)
        let server = try startServer(limits, handler: echo)
        let client = try TestClient(port: server.port)
        #expect(try await client.exchange("GET / HTTP/1.1\r\n\r\n").status == 200)
        let start = ContinuousClock.now
        #expect(await client.isClosed())
        #expect(ContinuousClock.now - start < .seconds(4))
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aClientHangingUpCancelsTheHandler() async throws {
        let recorder = Recorder()
        let server = try startServer { _, responder in
            recorder.record("started")
            try? await Task.sleep(for: .seconds(30))
            recorder.record(Task.isCancelled ? "cancelled" : "slept")
            recorder.record(responder.isConnected ? "connected" : "disconnected")
            responder.respond(status: 200)
        }
        var client: TestClient? = try TestClient(port: server.port)
        client?.write("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
        #expect(await recorder.wait(for: "started"))
        let left = ContinuousClock.now
        client = nil
        #expect(await recorder.wait(for: "cancelled", timeout: .seconds(3)))
        let took = ContinuousClock.now - left
        #expect(took < .seconds(2))
        print("[http] the handler saw its cancellation \(took) after the hang-up")
        #expect(await recorder.wait(for: "disconnected"))
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aHangUpDuringAStreamMakesSendFail() async throws {
        let recorder = Recorder()
        let server = try startServer { _, responder in
            responder.startStream(status: 200, headers: [])
            while responder.send(Array("data: tick\n\n".utf8)) {
                try? await Task.sleep(for: .milliseconds(20))
            }
            recorder.record(Task.isCancelled ? "cancelled" : "not cancelled")
        }
        var client: TestClient? = try TestClient(port: server.port)
        client?.write("GET / HTTP/1.1\r\n\r\n")
        _ = try await client?.readHead()
        _ = try await client?.readChunk()
        client = nil
        #expect(await recorder.wait(for: "cancelled", timeout: .seconds(3)))
        await server.shutdown(grace: .seconds(1))
    }

    @Test func aClientThatReadsTooSlowlyIsDropped() async throws {
        var limits = HTTPLimits()
        limits.maxUnsentBytes = 256 * 1024
        let recorder = Recorder()
        let server = try startServer(limits) { _, responder in
            responder.startStream(status: 200, headers: [])
            let piece = [UInt8](repeating: 0x61, count: 64 * 1024)
            var sent = 0
            while responder.send(piece), sent < 1000 {
                sent += 1
                await Task.yield()
            }
            recorder.record(sent < 1000 && !responder.isConnected ? "dropped" : "sent all")
        }
        let client = try TestClient(port: server.port)
        client.write("GET / HTTP/1.1\r\n\r\n")
        #expect(await recorder.wait(for: "dropped", timeout: .seconds(10)), "\(recorder.all)")
        await server.shutdown(grace: .seconds(1))
    }

    /// At the limit a new client is taken by closing the connection idle longest (kept alive after
    /// an answer, or open without a byte), in that order; the one whose request is in flight is never closed.
    @Test func aNewConnectionClosesTheConnectionIdleLongest() async throws {
        var limits = HTTPLimits()
        limits.maxConnections = 4
        limits.pressureIdleTimeout = .seconds(60)
        let (server, gate) = try startHoldingServer(limits)
        let held = try TestClient(port: server.port)
        held.write("GET /hold HTTP/1.1\r\n\r\n")
        #expect(await gate.recorder.wait(for: "held"))
        let kept = try TestClient(port: server.port)
        #expect(try await kept.exchange("GET / HTTP/1.1\r\n\r\n").status == 200)
        let silent = try await openSilently(server, count: 3)
        let later = try await openSilently(server, count: 4)
        var idle = [kept, silent, later]
        for round in 0..<6 {
            let client = try TestClient(port: server.port)
            #expect(try await client.exchange("GET / HTTP/1.1\r\n\r\n").status == 200, "round \(round)")
            #expect(await idle.removeFirst().isClosed(), "round \(round): the connection idle longest is closed")
            idle.append(client)
        }
        gate.release()
        #expect(try await held.readResponse().status == 200, "the request in flight finished")
        for client in idle { #expect(try await client.exchange("GET / HTTP/1.1\r\n\r\n").status == 200) }
        await server.shutdown(grace: .seconds(1))
    }

    @Test func whenEveryConnectionIsInFlightANewOneGets503() async throws {
        var limits = HTTPLimits()
        limits.maxConnections = 2
        let (server, gate) = try startHoldingServer(limits)
        let first = try TestClient(port: server.port)
        first.write("GET /hold HTTP/1.1\r\n\r\n")
        let second = try TestClient(port: server.port)
        second.write("GET /hold HTTP/1.1\r\n\r\n")
        #expect(await gate.recorder.wait(for: "held 2"))
        let third = try TestClient(port: server.port)
        let response = try await third.readResponse()
        #expect(response.status == 503)
        #expect(response.headers["Connection"] == "close")
        #expect(await third.isClosed())
        gate.release()
        #expect(try await first.readResponse().status == 200)
        #expect(try await second.readResponse().status == 200)
        await server.shutdown(grace: .seconds(1))
    }

    /// A server that holds `/hold` requests until the gate opens and echoes the rest.
    func startHoldingServer(_ limits: HTTPLimits) throws -> (HTTPServer, Gate) {
        let gate = Gate()
        let server = try startServer(limits) { request, responder in
            guard request.path == "/hold" else { return await echo(request, responder) }
            await gate.hold()
            responder.respond(status: 200)
        }
        return (server, gate)
    }

    /// A connection that sends nothing, once the server counts `count` connections.
    func openSilently(_ server: HTTPServer, count: Int) async throws -> TestClient {
        let client = try TestClient(port: server.port)
        let deadline = ContinuousClock.now + .seconds(5)
        while server.connectionCount < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.connectionCount == count)
        return client
    }

    @Test func shutdownLetsAStreamFinishWithinGraceThenFreesThePort() async throws {
        let recorder = Recorder()
        let server = try startServer { request, responder in
            guard request.path == "/stream" else { return await echo(request, responder) }
            responder.startStream(status: 200, headers: [])
            recorder.record("streaming")
            for index in 0..<5 {
                try? await Task.sleep(for: .milliseconds(60))
                responder.send(Array("\(index)".utf8))
            }
            responder.finish()
        }
        let port = server.port
        let idle = try TestClient(port: port)
        #expect(try await idle.exchange("GET / HTTP/1.1\r\n\r\n").status == 200)
        let client = try TestClient(port: port)
        client.write("GET /stream HTTP/1.1\r\n\r\n")
        #expect(await recorder.wait(for: "streaming"))
        let stopped = Task { await server.shutdown(grace: .seconds(5)) }
        #expect(await idle.isClosed(), "an idle keep-alive connection closes at once")
        let response = try await client.readResponse()
        #expect(response.chunks?.map { String(decoding: $0, as: UTF8.self) } == ["0", "1", "2", "3", "4"])
        #expect(await client.isClosed(), "closed after the answer, not kept alive")
        await stopped.value
        #expect(throws: (any Error).self) { try TestClient(port: port) }
        let again = try HTTPServer.listen(host: "127.0.0.1", port: port, handler: echo)
        await again.shutdown(grace: .zero)
    }

    @Test func shutdownCancelsAHandlerThatOutlivesGrace() async throws {
        let recorder = Recorder()
        let server = try startServer { _, responder in
            recorder.record("started")
            try? await Task.sleep(for: .seconds(60))
            recorder.record(Task.isCancelled ? "cancelled" : "slept")
            responder.respond(status: 200)
        }
        let client = try TestClient(port: server.port)
        client.write("GET / HTTP/1.1\r\n\r\n")
        #expect(await recorder.wait(for: "started"))
        let start = ContinuousClock.now
        await server.shutdown(grace: .milliseconds(200))
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(recorder.all.contains("cancelled"))
        #expect(await client.isClosed())
    }

    @Test func aThousandBadRequestsLeakNothing() async throws {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 4096
        limits.maxHeaderCount = 20
        let server = try startServer(limits, handler: echo)
        let warm = try TestClient(port: server.port)
        #expect(try await warm.exchange("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").status == 200)
        #expect(await warm.isClosed())
        #expect(await settled(server))
        let (threads, fds) = (ProcessCounts.threads, ProcessCounts.fds)
        for index in 0..<1000 {
            let client = try TestClient(port: server.port)
            switch index % 4 {
            case 0: client.write("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            case 1: client.write("GET / HTTP/1.1\r\nX: \(String(repeating: "z", count: 5000))\r\n\r\n")
            case 2: client.write(Array("GET / HTTP/1.1\r\nX: ".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8))
            default: client.write("GET / HTTP/1.1\r\n" + String(repeating: "X-F: 1\r\n", count: 30) + "\r\n")
            }
            if index % 4 != 0 { #expect(try await client.readResponse().status >= 400) }
        }
        var good: TestClient? = try TestClient(port: server.port)
        #expect(try await good?.exchange("GET /fine HTTP/1.1\r\nConnection: close\r\n\r\n").text == "GET /fine - ")
        good = nil
        #expect(await settled(server, threads: threads, fds: fds))
        #expect(ProcessCounts.threads <= threads, "threads: \(ProcessCounts.threads), before \(threads)")
        #expect(ProcessCounts.fds <= fds, "open descriptors: \(ProcessCounts.fds), before \(fds)")
        await server.shutdown(grace: .seconds(1))
    }

    /// Waits until the server has no connection open and this process is back to `threads`
    /// threads and `fds` descriptors (the connection threads have exited), for up to 10 s.
    func settled(_ server: HTTPServer, threads: Int = .max, fds: Int = .max) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while server.connectionCount > 0 || ProcessCounts.threads > threads || ProcessCounts.fds > fds, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return server.connectionCount == 0
    }
}
