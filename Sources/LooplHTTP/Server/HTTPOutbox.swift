/// The bytes of a response waiting to be written, consumed from the front without copying.
struct HTTPOutbox {
    private var bytes: [UInt8] = []
    private var start = 0

    /// The bytes not yet written.
    var count: Int { bytes.count - start }

    /// Whether everything was written.
    var isEmpty: Bool { start == bytes.count }

    /// Queues `more` after what waits.
    mutating func append(_ more: [UInt8]) {
        bytes.append(contentsOf: more)
    }

    /// Hands the unwritten bytes to `write`, which returns how many it took (negative on an error).
    mutating func write(_ write: (UnsafeRawBufferPointer) -> Int) -> Int {
        let taken = bytes[start...].withUnsafeBytes(write)
        if taken > 0 { start += taken }
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 16)
            start = 0
        } else if start > 1 << 16, start * 2 > bytes.count {
            bytes.removeFirst(start)
            start = 0
        }
        return taken
    }
}
