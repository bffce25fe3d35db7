/// Decodes an HTTP/1.1 chunked body as it arrives (``ChunkedEncoder`` writes one).
package struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case size, data(remaining: Int), dataEnd, trailers, done
    }

    private var state = State.size
    private var line: [UInt8] = []

    /// True once the last chunk and the trailers have arrived.
    package var isComplete: Bool { if case .done = state { true } else { false } }

    package init() {}

    /// Takes the next bytes and returns the payload they carry; throws on bytes that are not chunked encoding.
    package mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPTransportError) -> [UInt8] {
        var payload: [UInt8] = []
        var rest = bytes[...]
        while let byte = rest.first {
            switch state {
            case .done:
                return payload
            case .data(let remaining):
                let taken = rest.prefix(remaining)
                payload += taken
                rest = rest.dropFirst(taken.count)
                state = taken.count == remaining ? .dataEnd : .data(remaining: remaining - taken.count)
            case .size, .dataEnd, .trailers:
                rest = rest.dropFirst()
                guard byte == 0x0A else {
                    guard line.count < 4096 else { throw .malformed("a chunk line longer than 4096 bytes") }
                    line.append(byte)
                    continue
                }
                if line.last == 0x0D { line.removeLast() }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return payload
    }

    private mutating func endLine() throws(HTTPTransportError) {
        switch state {
        case .size:
            let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != 0x09 }
            let hex = digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
            guard hex, !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                throw .malformed("a chunk size that is not hexadecimal")
            }
            state = size == 0 ? .trailers : .data(remaining: size)
        case .dataEnd:
            guard line.isEmpty else { throw .malformed("a chunk longer than its size") }
            state = .size
        case .trailers:
            if line.isEmpty { state = .done }
        case .data, .done:
            break
        }
    }
}
