import Loopl
import Testing

@Suite struct ToolCallParserTests {
    @Test(arguments: ToolCallCases.all)
    func caseTable(_ row: ParseCase) {
        row.check(row.parser().parse(row.text), under: row.format)
        if row.sameUnderAuto {
            row.check(row.parser(.auto).parse(row.text), under: .auto)
        }
    }

    /// Whole text, one scalar at a time, and random splits give the same events and result.
    @Test(arguments: ToolCallCases.all)
    func splitEquivalence(_ row: ParseCase) {
        var formats = [row.format]
        if row.sameUnderAuto { formats.append(.auto) }
        for format in formats {
            let whole = row.parser(format).parse(row.text).withoutIds
            let scalars = row.text.unicodeScalars.map { String($0) }
            var rng = SplitMix(seed: UInt64(row.text.utf8.count))
            var splits: [[String]] = [scalars]
            for _ in 0..<8 { splits.append(randomSplit(row.text, using: &rng)) }
            for pieces in splits {
                var parser = row.parser(format)
                var events: [ToolCallParser.Event] = []
                for piece in pieces { events += parser.feed(piece) }
                events += parser.finish()
                let streamed = ToolCallParser.result(of: events).withoutIds
                #expect(streamed == whole, "\(row.name) [\(format)] split \(pieces.count)")
            }
        }
    }
}

/// Splits text at random scalar boundaries.
func randomSplit(_ text: String, using rng: inout SplitMix) -> [String] {
    let scalars = Array(text.unicodeScalars)
    var pieces: [String] = []
    var i = 0
    while i < scalars.count {
        let n = Int(rng.next() % 7) + 1
        let end = min(scalars.count, i + n)
        var piece = ""
        piece.unicodeScalars.append(contentsOf: scalars[i..<end])
        pieces.append(piece)
        i = end
    }
    return pieces
}

/// A small seeded generator, so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
