/// Seeded random mutations of fuzz inputs, for runs without libFuzzer (the in-suite fuzz tests):
/// the same seed gives the same inputs, so a failure reproduces.
package struct ByteMutator {
    private var state: UInt64
    /// The longest input it makes.
    package var maxLength: Int

    package init(seed: UInt64, maxLength: Int = 1 << 16) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
        self.maxLength = maxLength
    }

    /// A random number below `bound` (0 when `bound` is 0).
    package mutating func below(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return bound <= 0 ? 0 : Int(z % UInt64(bound))
    }

    /// `input` changed by one to four random edits: bytes flipped, set to edge values, inserted or
    /// removed; ranges duplicated or cut; dictionary words and pieces of other corpus entries spliced in.
    package mutating func mutate(_ input: [UInt8], corpus: [[UInt8]], dictionary: [[UInt8]]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) {
            let at = below(bytes.count + 1)
            switch below(9) {
            case 0 where at < bytes.count:
                bytes[at] ^= UInt8(1 << below(8))
            case 1 where at < bytes.count:
                bytes[at] = [0, 0x7F, 0x80, 0xFF, 0x0A, 0x22, 0x7B, 0x7D][below(8)]
            case 2:
                bytes.insert(UInt8(truncatingIfNeeded: below(256)), at: at)
            case 3 where at < bytes.count:
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(16)))
            case 4 where at < bytes.count:
                let end = min(bytes.count, at + 1 + below(64))
                bytes.insert(contentsOf: bytes[at..<end], at: end)
            case 5:
                bytes.removeSubrange(at...)
            case 6 where !dictionary.isEmpty:
                bytes.insert(contentsOf: dictionary[below(dictionary.count)], at: at)
            case 7 where !corpus.isEmpty:
                let other = corpus[below(corpus.count)]
                let start = below(other.count)
                bytes.insert(contentsOf: other[start..<min(other.count, start + 1 + below(256))], at: at)
            default:
                bytes.insert(UInt8(truncatingIfNeeded: 0x20 + below(0x5F)), at: at)
            }
        }
        return bytes.count > maxLength ? Array(bytes.prefix(maxLength)) : bytes
    }
}
