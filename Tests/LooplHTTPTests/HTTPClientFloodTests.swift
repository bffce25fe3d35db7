import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LooplHTTP
import Testing

/// A server that sends too much is cut off: an endless SSE line past 16 MiB and a small
/// endpoint's body past 1 MiB are protocol violations, and the host's memory stays bounded.
@Suite(.serialized) struct HTTPClientFloodTests {
    /// The process's resident memory in KiB (VmRSS).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test(.timeLimit(.minutes(1)))
    func anEndlessEventLineFailsOnceOver16MiB() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: "
        let server = try RawServer(answer: head, flood: ([UInt8](repeating: 0x78, count: 65536), 768 << 20))
        defer { server.stop() }
        let before = Self.residentKilobytes()
        var request = URLRequest(url: server.url.appendingPathComponent("v1/chat/completions"))
        request.timeoutInterval = 10
        var outcome: (any Error)?
        var events = 0
        do {
            for try await _ in EventStream(response: HTTPResponseStream.open(request)) { events += 1 }
        } catch {
            outcome = error
        }
        let grown = Self.residentKilobytes() - before
        #expect(events == 0)
        guard case .violation(let message)? = outcome as? HTTPTransportError else {
            Issue.record("not a violation: \(String(describing: outcome))")
            return
        }
        #expect(message.contains("longer than 16 MiB"), "\(message)")
        #expect(grown < 300 * 1024, "the host grew by \(grown / 1024) MiB")
    }

    @Test func aSmallEndpointsBodyOver1MiBFails() async throws {
        let body = String(repeating: "y", count: 2 << 20)
        let server = try RawServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        defer { server.stop() }
        do {
            _ = try await HTTPResponseStream.open(URLRequest(url: server.url.appendingPathComponent("health"))).collect()
            Issue.record("expected a protocol violation")
        } catch HTTPTransportError.violation(let message) {
            #expect(message.contains("larger than 1 MiB"), "\(message)")
        }
    }
}
