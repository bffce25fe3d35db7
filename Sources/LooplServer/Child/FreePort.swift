#if canImport(Glibc)
import Glibc
#endif
import Loopl

/// A TCP port on 127.0.0.1 that nothing listens on right now, found by binding port 0.
enum FreePort {
    /// Asks the kernel for a free port and releases it at once, for a child to bind.
    static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw failure("bind") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts a child on a port from `nextPort` and waits until `ready` says it serves, up to
    /// three times: another process may take the port between ``find()`` and the child's bind,
    /// and a child whose last lines then contain `busyWord` is started again on a new port. A
    /// child that fails is ended.
    static func launch<T>(busyWord: String, port nextPort: () throws -> Int, _ start: (Int) throws -> ChildProcess,
                          ready: (ChildProcess, Int) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let port = try nextPort()
            let process = try start(port)
            do {
                return try await ready(process, port)
            } catch {
                await process.terminate(grace: .seconds(1))
                if attempt < 3, (error as? LooplError)?.code == .processFailed, process.lastLines.contains(busyWord) { continue }
                throw error
            }
        }
    }

    private static func failure(_ call: String) -> LooplError {
        LooplError(.processFailed, "Cannot find a free local port (\(call): \(String(cString: strerror(errno)))). Check that the loopback interface is up.")
    }
}
