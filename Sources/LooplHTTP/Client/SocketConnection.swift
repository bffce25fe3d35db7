import Glibc
import Synchronization

/// The client's socket, which another thread may shut down at any time: every wait is a poll with
/// the request's timeout (``Socket``), and a cancel wakes it at once.
package final class SocketConnection: Sendable {
    private struct State {
        var fd: Int32 = -1
        var cancelled = false
    }
    private let state = Mutex(State())

    package init() {}

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Wakes the reader and makes the exchange end as cancelled.
    package func cancel() {
        state.withLock {
            $0.cancelled = true
            if $0.fd >= 0 { _ = shutdown($0.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Releases the socket; only the exchange's own thread calls this.
    package func close() {
        state.withLock {
            if $0.fd >= 0 { _ = Glibc.close($0.fd) }
            $0.fd = -1
        }
    }

    private var fd: Int32 { state.withLock { $0.fd } }

    /// Connects to the first address of `host` that answers within `timeout`.
    package func connect(host: String, port: Int, timeout: Duration) throws(HTTPTransportError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw .cannotConnect("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let address = next {
            next = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { reason = String(cString: strerror(errno)); continue }
            guard adopt(fd) else { _ = Glibc.close(fd); throw .cancelled }
            if let failure = Socket.connect(fd, to: address.pointee.ai_addr, length: address.pointee.ai_addrlen, until: .now + timeout) {
                reason = failure
                close()
                if isCancelled { throw .cancelled }
                continue
            }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            return
        }
        throw .cannotConnect(reason)
    }

    /// Takes `fd` as the socket, unless the exchange was cancelled already.
    private func adopt(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.fd = fd
            return true
        }
    }

    /// Sends all of `bytes`, the socket taking each part within `timeout`.
    package func send(_ bytes: [UInt8], timeout: Duration) throws(HTTPTransportError) {
        guard !Socket.sendAll(fd, bytes, until: .now + timeout) else { return }
        throw isCancelled ? .cancelled : .connectionLost
    }

    /// What has arrived, waiting at most `timeout`; empty when the server closed the connection.
    package func read(timeout: Duration) throws(HTTPTransportError) -> [UInt8] {
        let fd = self.fd
        let deadline = ContinuousClock.now + timeout
        while true {
            let ready = Socket.wait([(fd, Int16(POLLIN))], until: deadline)[0] != 0
            if isCancelled { throw .cancelled }
            guard ready else {
                if ContinuousClock.now >= deadline { throw .timedOut }
                continue
            }
            var failed = false
            guard let bytes = Socket.read(fd, count: 64 * 1024, failed: &failed) else { continue }
            if failed { throw isCancelled ? .cancelled : .connectionLost }
            return bytes
        }
    }
}
