import Foundation
@testable import LooplHTTP
import Testing

/// The server's threads carry their names where Linux shows them (/proc, `top -H`, debuggers).
@Suite struct HTTPThreadNameTests {
    /// The names of this process's threads, as the kernel keeps them.
    static func threadNames() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) })
    }

    @Test func acceptAndConnectionThreadsAreNamed() async throws {
        let server = try HTTPServer.listen(host: "127.0.0.1", port: 0) { _, responder in
            responder.respond(status: 200, headers: [], body: Array(HTTPThreadNameTests.threadNames().sorted().joined(separator: "\n").utf8))
        }
        let client = try TestClient(port: server.port)
        let seen = try await client.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n").text.split(separator: "\n").map(String.init)
        await server.shutdown(grace: .seconds(1))
        #expect(seen.contains(HTTPServer.acceptThreadName), "\(seen)")
        #expect(seen.contains(HTTPServer.connectionThreadName), "\(seen)")
    }
}
