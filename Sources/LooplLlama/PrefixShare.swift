import CLlama

/// Where a new sequence gets the start of its prompt from: the cells another sequence holds, or a
/// prompt another request is evaluating, which it waits for rather than evaluating it too.
///
/// The KV cache keeps a stream per sequence, so a copy moves a whole stream (at the next decode)
/// and then drops what follows the shared prefix: it is worth it from ``minimum`` tokens on.
struct PrefixShare: Equatable {
    /// The fewest tokens a copy must save over what the sequence holds itself.
    static let minimum = 64

    enum Source: Equatable {
        /// Copy `length` tokens from the cells of `sequence` now.
        case copy(sequence: Int, length: Int)
        /// Wait: a prompt being evaluated will hold more of this one than any sequence holds now.
        case wait
        /// Evaluate from what the sequence holds itself.
        case own
    }

    /// How a prompt whose own sequence holds `own` leading tokens of it gets the rest: `held`
    /// is the longest prefix another sequence holds (and which), `coming` the longest that a
    /// prompt being evaluated shares with it.
    static func source(own: Int, held: (sequence: Int, length: Int)?, coming: Int) -> Source {
        let available = held?.length ?? 0
        if coming >= max(available, own) + minimum { return .wait }
        guard let held, held.length >= own + minimum else { return .own }
        return .copy(sequence: held.sequence, length: held.length)
    }
}

extension SequenceTable {
    /// The sequence other than `excluded` whose cells hold the longest prefix of `prompt`, at
    /// most `limit` tokens of it (`cut(sequence, length)` shortens each), among those whose cells serve the prompt from there on
    /// (`usable(sequence, length)`); nil when none holds any.
    func longestPrefix(of prompt: [llama_token], excluding excluded: Int, limit: Int, cut: (Int, Int) -> Int = { $1 },
                       usable: (Int, Int) -> Bool) -> (sequence: Int, length: Int)? {
        var best: (sequence: Int, length: Int)?
        for index in entries.indices where index != excluded {
            let length = cut(index, min(Self.commonPrefix(entries[index].tokens, prompt), limit))
            if length > (best?.length ?? 0), usable(index, length) { best = (index, length) }
        }
        return best
    }
}
