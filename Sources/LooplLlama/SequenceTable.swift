import CLlama

/// The KV sequences of one context: which tokens each holds, for which conversation, and which
/// are serving a request. Chooses the sequence a new request runs in.
struct SequenceTable {
    /// One sequence of the KV cache.
    struct Entry {
        /// Its tokens, in order, whose keys and values are in the cache.
        var tokens: [llama_token] = []
        /// How many of its first tokens were evaluated in the chunks of a fresh evaluation (whole
        /// chunks ending at multiples of the alignment), when prompts are aligned.
        var aligned = 0
        /// The conversation they belong to; nil for a one-off request's.
        var conversation: String?
        var busy = false
        /// When it last served a request (a counter); 0 when never.
        var lastUsed = 0
    }

    var entries: [Entry]
    private var clock = 0

    init(count: Int) {
        entries = Array(repeating: Entry(), count: max(count, 1))
    }

    /// Takes an idle sequence for a request of `conversation` with `prompt`, and marks it busy:
    /// the conversation's own, else the free or one-off one that shares the longest prefix with
    /// `prompt` (the least recently used among equals), else the least recently used one of
    /// another conversation, whose cells are given up. Nil when every sequence is busy.
    mutating func claim(conversation: String?, prompt: [llama_token]) -> Int? {
        let idle = entries.indices.filter { !entries[$0].busy }
        let own = conversation.flatMap { name in
            idle.filter { entries[$0].conversation == name }.max { entries[$0].lastUsed < entries[$1].lastUsed }
        }
        let unowned = idle.filter { entries[$0].conversation == nil }
        let shared = unowned.map { index in (index, Self.commonPrefix(entries[index].tokens, prompt)) }
            .max { $0.1 < $1.1 || ($0.1 == $1.1 && entries[$0.0].lastUsed > entries[$1.0].lastUsed) }?.0
        let oldest = idle.min { entries[$0].lastUsed < entries[$1].lastUsed }
        guard let index = own ?? shared ?? oldest else { return nil }
        entries[index].busy = true
        entries[index].conversation = conversation
        return index
    }

    /// Marks sequence `index` idle, its tokens kept for the next request of its conversation.
    mutating func release(_ index: Int) {
        clock += 1
        entries[index].busy = false
        entries[index].lastUsed = clock
    }

    /// How many leading tokens `a` and `b` share.
    static func commonPrefix(_ a: [llama_token], _ b: [llama_token]) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }
}
