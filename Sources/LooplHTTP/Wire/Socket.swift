import Glibc

/// The blocking-free socket calls of the server's threads and the client's: every wait is a `poll`
/// with a deadline.
enum Socket {
    /// Linux's "peer closed its writing side" poll event (not exported by the Glibc module).
    static let pollReadHangUp: Int16 = 0x2000
    /// Events that say the peer is gone.
    static let hangUp = pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)

    /// Makes `fd` non-blocking and closed on exec.
    @discardableResult
    static func prepare(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
    }

    /// Waits on `fds` until one is ready or `deadline` passes (nil: no deadline); returns the events seen.
    static func wait(_ fds: [(fd: Int32, events: Int16)], until deadline: ContinuousClock.Instant?) -> [Int16] {
        var entries = fds.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        let timeout = deadline.map { milliseconds(until: $0) } ?? -1
        let count = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
        return count > 0 ? entries.map(\.revents) : entries.map { _ in 0 }
    }

    /// The whole milliseconds until `deadline`, rounded up, at least 0.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(millis, Int64(Int32.max)))
    }

    /// Connects the non-blocking socket `fd` to `address` by `deadline`; the reason on failure.
    static func connect(_ fd: Int32, to address: UnsafeMutablePointer<sockaddr>?, length: socklen_t,
                        until deadline: ContinuousClock.Instant) -> String? {
        guard prepare(fd) else { return String(cString: strerror(errno)) }
        guard Glibc.connect(fd, address, length) != 0 else { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        while wait([(fd, Int16(POLLOUT))], until: deadline)[0] == 0 {
            if ContinuousClock.now >= deadline { return "timed out" }
        }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        return error == 0 ? nil : String(cString: strerror(error))
    }

    /// Reads what is there, up to `count` bytes: the bytes, [] at end of stream, nil when nothing is
    /// ready yet; `failed` is set on an error.
    static func read(_ fd: Int32, count: Int, failed: inout Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_DONTWAIT)) }
        if got > 0 { return Array(bytes[..<got]) }
        if got == 0 { return [] }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        failed = true
        return []
    }

    /// Whether bytes are waiting to be read on `fd`, left where they are.
    static func hasBytes(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
    }

    /// Sends what the socket takes now: the count sent, 0 when it takes nothing yet, -1 on an error.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        let sent = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if sent >= 0 { return sent }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1
    }

    /// Sends all of `bytes` by `deadline`; false when the peer is gone or too slow.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0) }
            if sent < 0 { return false }
            offset += sent
            if offset < bytes.count {
                if ContinuousClock.now >= deadline { return false }
                _ = wait([(fd, Int16(POLLOUT))], until: deadline)
            }
        }
        return true
    }

    /// Closes after an error answer: ends the sending side, then reads and drops what the client
    /// still sends (up to `drain` bytes, until `deadline` or a signal on `wakeup`), so that the
    /// answer is not lost to a reset.
    static func lingeringClose(_ fd: Int32, wakeup: Int32, drain: Int = 1 << 20, until deadline: ContinuousClock.Instant) {
        shutdown(fd, Int32(SHUT_WR))
        var left = drain
        var failed = false
        while left > 0, !failed, ContinuousClock.now < deadline {
            if wait([(fd, Int16(POLLIN)), (wakeup, Int16(POLLIN))], until: deadline)[1] != 0 { break }
            guard let bytes = read(fd, count: 64 * 1024, failed: &failed) else { continue }
            if bytes.isEmpty { break }
            left -= bytes.count
        }
        close(fd)
    }
}
