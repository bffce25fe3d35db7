/// Chunked transfer coding on the sending side (``ChunkedDecoder`` reads it).
enum ChunkedEncoder {
    /// One chunk of a chunked body: its size in hex, CRLF, the bytes, CRLF.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count, radix: 16).utf8) + [0x0D, 0x0A] + bytes + [0x0D, 0x0A]
    }

    /// The chunk that ends a chunked body.
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
