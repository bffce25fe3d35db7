/// How a step's sequences are grouped into llama.cpp's passes over the weights ("ubatches").
///
/// With a KV stream per sequence, llama.cpp evaluates a run of consecutive sequences (in the
/// batch's order, each `seq_id` one more than the last) in one pass, in which every token attends
/// over as many cells as the deepest of them holds. A short conversation decoded beside a long
/// one then pays for the long one's depth, while a pass of its own costs another read of the
/// weights. The plan weighs the two: it splits the sequences, in the order of their ids, into
/// ranges that cost least in all, a range costing one read of the weights (``passCells``, counted
/// as cells attended) plus each of its tokens times its deepest sequence's cells. The batch lists
/// the ranges from the highest ids down, so that llama.cpp never joins two of them.
struct UbatchPlan: Sendable, Equatable {
    /// One sequence of the batch's span of ids.
    enum Slot: Sendable, Equatable {
        /// It has `count` tokens in the batch, and will hold `depth` cells with them.
        case tokens(count: Int, depth: Int)
        /// It has none, and may get a padding token (at `depth` cells) to join its neighbours.
        case padding(depth: Int)
        /// It has none and cannot be padded: no range spans it.
        case barrier

        /// The tokens it puts in a pass and the cells they attend over; nil for a barrier.
        var load: (tokens: Int, depth: Int)? {
            switch self {
            case .tokens(let count, let depth): (count, depth)
            case .padding(let depth): (1, depth)
            case .barrier: nil
            }
        }
    }

    /// What reading the weights once costs, as the cells one token's attention would read in
    /// the same time.
    let passCells: Int

    /// About the model's bytes over the bytes of one cell's keys and values (16-bit) in every
    /// layer: a pass over the weights reads the former, a token reads the latter for each cell.
    init(modelBytes: Int, layers: Int, keyValueWidth: Int) {
        let cellBytes = max(layers, 1) * max(keyValueWidth, 1) * 2 * 2
        passCells = min(max(modelBytes / cellBytes, 256), 1 << 20)
    }

    init(passCells: Int) {
        self.passCells = passCells
    }

    /// The cells llama.cpp attends over for a sequence of `length` tokens: a multiple of 256.
    static func cells(_ length: Int) -> Int {
        max(256, (length + 255) / 256 * 256)
    }

    /// The ranges of `slots` (offsets into the span) whose sequences go in one pass each, from the
    /// highest down; every slot with tokens is in one, padding only between two with tokens.
    func ranges(_ slots: [Slot]) -> [Range<Int>] {
        var best = [0] + Array(repeating: Int.max, count: slots.count)
        var start = Array(repeating: -1, count: slots.count + 1)
        for end in slots.indices.map({ $0 + 1 }) {
            guard case .tokens = slots[end - 1] else {
                best[end] = best[end - 1]
                continue
            }
            var tokens = 0, deepest = 0
            for first in stride(from: end - 1, through: 0, by: -1) {
                guard let load = slots[first].load else { break }
                (tokens, deepest) = (tokens + load.tokens, max(deepest, load.depth))
                guard case .tokens = slots[first] else { continue }
                let cost = best[first] + passCells + tokens * deepest
                if cost < best[end] { (best[end], start[end]) = (cost, first) }
            }
        }
        var ranges: [Range<Int>] = []
        var end = slots.count
        while end > 0 {
            if start[end] < 0 { end -= 1; continue }
            ranges.append(start[end]..<end)
            end = start[end]
        }
        return ranges
    }
}
