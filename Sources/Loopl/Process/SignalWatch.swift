import CLooplSpawn
import Foundation

/// Delivers the process's SIGINT, SIGTERM or other signals as values, one at a time, instead of
/// their default action: a server's way to shut down in order. One per process.
package final class SignalWatch: Sendable {
    private let stream: AsyncStream<Int32>

    /// Catches `numbers` from now on (the handler is in place when this returns).
    package init(_ numbers: [Int32]) throws {
        let fd = numbers.withUnsafeBufferPointer { loopl_signal_pipe($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw LooplError(.io, "Cannot catch signals \(numbers): \(String(cString: strerror(errno))).") }
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        Thread.start(named: "loopl signals") {
            var byte: UInt8 = 0
            while true {
                let count = read(fd, &byte, 1)
                if count == 1 { continuation.yield(Int32(byte)) } else if count == 0 || errno != EINTR { break }
            }
            continuation.finish()
        }
    }

    /// The next signal caught.
    package func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }
}
