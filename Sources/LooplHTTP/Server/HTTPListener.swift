import Glibc

/// A listening TCP socket, bound to an IP address and port.
enum HTTPListener {
    /// The listen backlog: enough that a burst of connections waits in the kernel's queue rather
    /// than in SYN retries (the kernel caps it at `net.core.somaxconn`).
    static let backlog: Int32 = 4096

    /// Binds `host:port` (port 0 picks a free one) with SO_REUSEADDR and listens; returns the socket and its port.
    static func open(host: String, port: Int) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        let address = host == "localhost" ? "127.0.0.1" : host
        guard (0...65535).contains(port) else {
            throw .cannotBind(host: host, port: port, reason: "the port must be between 0 and 65535")
        }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw .invalidHost(host)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .cannotBind(host: host, port: port, reason: errorText()) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = family == AF_INET
            ? withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            : withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        if bound != 0 || listen(fd, backlog) != 0 || !Socket.prepare(fd) {
            let code = errno
            let reason = errorText()
            close(fd)
            if code == EADDRINUSE { throw .addressInUse(host: host, port: port) }
            throw .cannotBind(host: host, port: port, reason: reason)
        }
        return (fd, boundPort(fd) ?? port)
    }

    /// The port `fd` is bound to.
    static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// The system's text for the current `errno`.
    static func errorText() -> String { String(cString: strerror(errno)) }
}
