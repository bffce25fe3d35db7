import CLlama
import Loopl

/// Prompt-lookup drafting for one sequence: the tokens that followed the latest earlier
/// occurrence of the sequence's last n-gram (its prompt and output so far), as many as the
/// acceptance of the previous drafts allows.
///
/// The length starts at `draftMin` (a copy is caught within a few steps, and a match by chance
/// wastes little) and adapts: a draft that held entirely doubles it (up to `draftMax`), one that held in
/// part sets it to the part that held and one more, and one that failed at its first token halves
/// it; at zero, drafting pauses for a number of steps that doubles with every failed probe, up to
/// ``longestPause``. A pause that followed a draft from a match shorter than `ngramMax` ends at a
/// match of `ngramMax` (a copy starting after a chance match failed). After a draft that held
/// entirely, a match of ``copyMatch`` tokens drafts `draftMax` at once: a copy under way, where
/// fewer and longer steps pay most.
struct NGramDrafter {
    let speculation: Speculation
    /// The tokens the next draft may hold.
    private(set) var length: Int
    /// Steps to skip before the next probe, and the pause after the next failed one.
    private var pause = 0
    private var backoff = Self.firstPause
    /// The length of the n-gram the last draft came from, and whether the pause ends at a longer one.
    private var matched = 0
    private var pauseYields = false
    /// The share of drafted tokens that held, over the last few drafts; while it is below
    /// ``crowdedRate`` a crowded step drafts nothing, and each such step brings it back a little.
    private var rate = 1.0
    /// The last draft held entirely.
    private var heldAll = false
    /// A crowded step splits in two passes over the weights when one sequence brings more
    /// tokens than the others, so a draft there pays only when nearly all of it holds.
    static let crowdedRate = 0.9

    /// The pause after a first failed probe, and the longest one. On a CPU a failed probe costs
    /// about a generated token (a step of two tokens costs twice one of one), so that text whose
    /// drafts all fail pays for 7 probes in 256 tokens; the longest pause is short enough that an
    /// answer that starts copying after a run of failed probes is caught within a sentence.
    static let firstPause = 4, longestPause = 64

    /// A match this long is a copy under way (llama-server's n-gram for its drafts).
    static let copyMatch = 12

    init(_ speculation: Speculation) {
        self.speculation = speculation
        length = speculation.draftMin
    }

    /// The draft that follows `history` (whose last token is the one about to be evaluated),
    /// at most `limit` tokens; empty when none is worth verifying. `crowded`: other sequences
    /// share the step, where a draft costs about what it saves, so only a match of `ngramMax`
    /// tokens is drafted from, and only while ``crowdedRate`` of the drafted tokens held.
    mutating func draft(after history: [llama_token], limit: Int, crowded: Bool = false) -> [llama_token] {
        guard speculation.kind == .ngram else { return [] }
        if pause > 0 {
            pause -= 1
            guard pauseYields, !crowded, Self.occurrence(history, ngramMin: speculation.ngramMax, ngramMax: speculation.ngramMax) != nil else { return [] }
            pause = 0
        }
        let size = min(max(length, 1), limit)
        guard size >= speculation.draftMin else { return [] }
        if crowded, rate < Self.crowdedRate {
            rate += (1 - rate) / 16
            return []
        }
        let copy = !crowded && heldAll && size < speculation.draftMax
            ? Self.occurrence(history, ngramMin: Self.copyMatch, ngramMax: Self.copyMatch) : nil
        let shortest = crowded ? speculation.ngramMax : speculation.ngramMin
        guard let found = copy ?? Self.occurrence(history, ngramMin: shortest, ngramMax: speculation.ngramMax) else { return [] }
        matched = found.n
        var draft = Self.tokens(after: found, in: history, count: copy == nil ? size : min(speculation.draftMax, limit))
        if speculation.spoilsDrafts, let first = draft.first { draft[0] = first == 0 ? 1 : first - 1 }
        return draft
    }

    /// Records that `accepted` of the `drafted` tokens just verified held.
    mutating func record(drafted count: Int, accepted held: Int) {
        guard count > 0 else { return }
        rate = 0.75 * rate + 0.25 * Double(held) / Double(count)
        heldAll = held == count
        if held == count {
            length = min(max(length, 1) * 2, speculation.draftMax)
            backoff = Self.firstPause
        } else if held > 0 {
            length = max(held + 1, speculation.draftMin)
            backoff = Self.firstPause
        } else {
            length /= 2
            if length < speculation.draftMin {
                pause = backoff
                pauseYields = matched < speculation.ngramMax
                backoff = min(backoff * 2, Self.longestPause)
                length = speculation.draftMin
            }
        }
    }

    /// Up to `count` tokens that followed the latest earlier occurrence of `history`'s last
    /// n-gram, the longest n from `ngramMax` down to `ngramMin` that occurs.
    static func lookup(_ history: [llama_token], ngramMin: Int, ngramMax: Int, count: Int) -> [llama_token] {
        guard count > 0, let found = occurrence(history, ngramMin: ngramMin, ngramMax: ngramMax) else { return [] }
        return tokens(after: found, in: history, count: count)
    }

    /// The latest earlier occurrence of `history`'s last n-gram, for the longest n from
    /// `ngramMax` down to `ngramMin` that occurs: n, and where it starts.
    private static func occurrence(_ history: [llama_token], ngramMin: Int, ngramMax: Int) -> (n: Int, start: Int)? {
        for n in stride(from: min(ngramMax, history.count - 1), through: max(ngramMin, 1), by: -1) {
            if let start = latest(history, n) { return (n, start) }
        }
        return nil
    }

    /// Up to `count` tokens after the occurrence `found` (at least one: it starts before the tail).
    private static func tokens(after found: (n: Int, start: Int), in history: [llama_token], count: Int) -> [llama_token] {
        let from = found.start + found.n
        return Array(history[from..<min(from + count, history.count)])
    }

    /// Where the latest earlier occurrence of `history`'s last n-gram starts.
    private static func latest(_ history: [llama_token], _ n: Int) -> Int? {
        let tail = history.count - n
        var start = tail - 1
        while start >= 0 {
            if matches(history, start, tail, n) { return start }
            start -= 1
        }
        return nil
    }

    private static func matches(_ history: [llama_token], _ start: Int, _ tail: Int, _ n: Int) -> Bool {
        for offset in 0..<n where history[start + offset] != history[tail + offset] { return false }
        return true
    }
}
