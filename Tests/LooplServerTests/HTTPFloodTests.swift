import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Loopl
import LooplHTTP
@testable import LooplServer
import Testing

/// A server that sends too much is cut off: an endless SSE line past 16 MiB and a small
/// endpoint's body past 1 MiB are protocol violations, and the host's memory stays bounded.
@Suite(.serialized) struct HTTPFloodTests {
    /// Answers one request with `head`, then sends `block` until `total` bytes or the client leaves.
    static func flooding(head: String, block: [UInt8], total: Int) throws -> (port: Int, fd: Int32) {
        let (port, fd) = try HTTPTransportTests.silentListener()
        Thread.start(named: "flood server") {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 65536)
            _ = read(client, &request, request.count)
            var sent = 0
            var bytes = Array(head.utf8)
            while sent < total {
                let count = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { break }
                sent += count
                bytes = block
            }
            close(client)
        }
        return (port, fd)
    }

    @Test(.timeLimit(.minutes(1)))
    func anEndlessEventLineFailsOnceOver16MiB() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: "
        let server = try Self.flooding(head: head, block: [UInt8](repeating: 0x78, count: 65536), total: 768 << 20)
        defer { close(server.fd) }
        let before = ProcessWatch.residentKilobytes()
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions")!)
        request.timeoutInterval = 10
        var outcome: (any Error)?
        var events = 0
        do {
            for try await _ in EventStream(response: HTTPResponseStream.open(request)) { events += 1 }
        } catch {
            outcome = error
        }
        let grown = ProcessWatch.residentKilobytes() - before
        let error = outcome as? LooplError
        #expect(events == 0)
        #expect(error?.code == .protocolViolation, "\(String(describing: outcome))")
        #expect(error?.message.contains("longer than 16 MiB") == true, "\(error?.message ?? "")")
        #expect(grown < 300 * 1024, "the host grew by \(grown / 1024) MiB")
    }

    @Test func aSmallEndpointsBodyOver1MiBFails() async throws {
        let body = String(repeating: "y", count: 2 << 20)
        let server = try FakeServer { _ in "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body }
        defer { server.stop() }
        do {
            _ = try await HTTPResponseStream.open(URLRequest(url: server.url.appendingPathComponent("health"))).collect()
            Issue.record("expected a protocol violation")
        } catch let error as LooplError {
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("larger than 1 MiB"), "\(error.message)")
        }
    }
}
