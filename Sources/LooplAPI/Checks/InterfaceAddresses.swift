import Glibc

/// The machine's own IP addresses, for a server listening on all of them.
enum InterfaceAddresses {
    /// Every IPv4 and IPv6 address of the machine's interfaces (IPv6 without a zone); empty when
    /// the kernel does not say.
    static func all() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var next = first
        while let entry = next {
            if let address = entry.pointee.ifa_addr, let text = text(address) { addresses.append(text) }
            next = entry.pointee.ifa_next
        }
        return addresses
    }

    /// Whether `address` is `0.0.0.0` or `::` (any form): listening there is listening everywhere.
    static func isUnspecified(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return v4.s_addr == 0 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { $0.allSatisfy { $0 == 0 } }
    }

    /// An IPv4 or IPv6 socket address as text; nil for another family.
    private static func text(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>? = switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet_ntop(AF_INET, &$0.pointee.sin_addr, &buffer, socklen_t(buffer.count)) }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet_ntop(AF_INET6, &$0.pointee.sin6_addr, &buffer, socklen_t(buffer.count)) }
        default:
            nil
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
