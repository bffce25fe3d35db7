import Glibc
import Synchronization

/// A pipe that wakes a thread waiting in `poll`: any thread signals, the owner polls `fd` and
/// drains. Signalling after `close()` does nothing, so a late signal never hits a reused descriptor.
final class Wakeup: Sendable {
    /// The read end, to poll for `POLLIN`.
    let fd: Int32
    private let writer: Mutex<Int32?>

    /// A new pipe; nil when the process is out of descriptors.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        guard Socket.prepare(ends[0]), Socket.prepare(ends[1]) else {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            return nil
        }
        fd = ends[0]
        writer = Mutex(ends[1])
    }

    /// Wakes the owner (at once, or at its next poll).
    func signal() {
        writer.withLock { end in
            guard let end else { return }
            var byte: UInt8 = 1
            _ = write(end, &byte, 1)
        }
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(fd, $0.baseAddress, 64) }) == 64 {}
    }

    /// Closes both ends; later signals are dropped.
    func close() {
        writer.withLock { end in
            guard let open = end else { return }
            Glibc.close(open)
            Glibc.close(fd)
            end = nil
        }
    }
}
