import Foundation
import Glibc
@testable import LooplHTTP
import Synchronization

/// A server on 127.0.0.1 for the client's tests: takes one connection, reads its request, answers
/// with bytes as given (well-formed or not), then closes. With no answer, it never accepts.
final class RawServer: Sendable {
    let port: Int
    private let listener: Int32
    private let received = Mutex<[HTTPRequest]>([])
    private let flood: (block: [UInt8], total: Int)?

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }
    /// The requests read so far.
    var requests: [HTTPRequest] { received.withLock { $0 } }

    /// Answers one request with `answer`, then `flood.block` until `flood.total` bytes or the client leaves.
    init(answer: String?, flood: (block: [UInt8], total: Int)? = nil) throws {
        (listener, port) = try HTTPListener.open(host: "127.0.0.1", port: 0)
        self.flood = flood
        guard let answer else { return }
        Thread.start(named: "raw server") { [self] in serve(Array(answer.utf8)) }
    }

    /// Closes the listening socket (once its one connection was served).
    func stop() { close(listener) }

    private func serve(_ answer: [UInt8]) {
        guard Socket.wait([(listener, Int16(POLLIN))], until: .now + .seconds(10))[0] != 0 else { return }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { Socket.lingeringClose(client, wakeup: -1, until: .now + .seconds(1)) }
        var parser = HTTPRequestParser()
        var event = parser.next()
        while event == .needMore {
            guard Socket.wait([(client, Int16(POLLIN))], until: .now + .seconds(5))[0] != 0 else { return }
            var failed = false
            guard let bytes = Socket.read(client, count: 65536, failed: &failed) else { continue }
            if bytes.isEmpty { return }
            parser.feed(bytes)
            event = parser.next()
        }
        if case .request(let request) = event { received.withLock { $0.append(request) } }
        var bytes = answer
        var sent = 0
        repeat {
            guard Socket.sendAll(client, bytes, until: .now + .seconds(10)) else { return }
            sent += bytes.count
            bytes = flood?.block ?? []
        } while sent < flood?.total ?? 0
    }
}
