/// One input format that the fuzzers feed with arbitrary bytes: running it on any input must
/// return (errors are fine), never crash or hang, and keep the target's own properties (such as
/// streamed parsing adding up to whole parsing).
package struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz` and the corpus directory (`Tests/Data/Fuzz/<name>`) use.
    package let name: String
    /// Words that mutations insert (also written to `<name>.dict` for libFuzzer).
    package let dictionary: [[UInt8]]
    /// Runs the code under test on one input; returns the property it broke, nil when none.
    package let run: @Sendable ([UInt8]) -> String?

    package init(name: String, dictionary: [[UInt8]], run: @escaping @Sendable ([UInt8]) -> String?) {
        self.name = name
        self.dictionary = dictionary
        self.run = run
    }

    /// Every target, in the order `scripts/fuzz` runs them.
    package static let all: [FuzzTarget] = [
        ToolCallParserFuzz.target, TemplateFuzz.target, RPCLineFuzz.target, GGUFFuzz.target, SSEFuzz.target,
        HTTPRequestFuzz.target,
    ]

    /// The target called `name`.
    package static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

extension FuzzTarget {
    /// A dictionary word as a line of a libFuzzer `-dict` file: quoted, with `\xNN` escapes.
    package static func dictionaryLine(_ word: [UInt8]) -> String {
        var line = "\""
        for byte in word {
            if byte >= 0x20, byte < 0x7F, byte != 0x22, byte != 0x5C {
                line.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                line += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return line + "\""
    }
}
