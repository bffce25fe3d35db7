/// Reads a fuzz input as an optional header line followed by a body.
struct FuzzInput {
    /// The words of the first line, when it is short and ends with a newline.
    let header: [Substring]
    /// The bytes after the header.
    let body: ArraySlice<UInt8>

    init(_ bytes: [UInt8], maxHeader: Int = 64) {
        if let newline = bytes.prefix(maxHeader).firstIndex(of: 0x0A) {
            header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
            body = bytes[(newline + 1)...]
        } else {
            header = []
            body = bytes[...]
        }
    }

    /// A byte derived from the whole input, to vary choices (split points, options) without a header.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 }
    }
}
