/// Fresh call ids in the shape of ``ToolCall/makeId()`` (`call_` and 8 letters and digits), from a
/// generator seeded once from the system, so that call-dense text does not cost a system call per
/// character.
struct CallIdGenerator: Sendable {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    mutating func next() -> String {
        var bytes = Array("call_".utf8)
        for _ in 0..<8 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            bytes.append(CallIdGenerator.alphabet[Int(z % UInt64(CallIdGenerator.alphabet.count))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
