import Glibc

/// Cuts a byte stream into newline-terminated lines, refusing lines over a limit.
package struct LineSplitter {
    /// What a chunk of input held.
    package enum Piece: Sendable {
        /// A complete line without its newline (and without a trailing carriage return).
        case line([UInt8])
        /// A line grew past the limit; the splitter discards input up to the next newline.
        case tooLong
    }

    package let limit: Int
    private var partial: [UInt8] = []
    private var skipping = false

    /// The longest line accepted by default, newline excluded: 16 MiB.
    package static let defaultLimit = 16 * 1024 * 1024

    package init(limit: Int = LineSplitter.defaultLimit) { self.limit = limit }

    /// The lines that `chunk` completes.
    package mutating func feed(_ chunk: [UInt8]) -> [Piece] {
        var pieces: [Piece] = []
        var start = chunk.startIndex
        while start < chunk.endIndex {
            guard let newline = Self.newline(in: chunk, from: start) else {
                append(chunk[start...], into: &pieces)
                break
            }
            append(chunk[start..<newline], into: &pieces)
            if skipping {
                skipping = false
            } else {
                if partial.last == 0x0D { partial.removeLast() }
                pieces.append(.line(partial))
            }
            partial = []
            start = newline + 1
        }
        return pieces
    }

    /// The index of the first newline at or after `start` (memchr: fast even in debug builds).
    private static func newline(in chunk: [UInt8], from start: Int) -> Int? {
        chunk.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress,
                  let found = memchr(base + start, 0x0A, buffer.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// What was left without a newline at end of input.
    package var remainder: [UInt8] { partial }

    private mutating func append(_ bytes: ArraySlice<UInt8>, into pieces: inout [Piece]) {
        guard !skipping else { return }
        if partial.count + bytes.count > limit {
            skipping = true
            partial = []
            pieces.append(.tooLong)
        } else {
            partial += bytes
        }
    }
}
