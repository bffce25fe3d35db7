/// The slots of a child llama-server (`-np`), as the host hands them out: a conversation keeps
/// its slot, and with it the server's cache of its prompt, and no slot is handed out twice.
///
/// The host chooses every slot, a one-off request's too: llama-server, given the id of a slot
/// that is still busy, saves and clears that slot's cache under the answer it is generating.
struct SlotTable: Sendable {
    private struct Slot {
        /// The conversation whose slot this is.
        var conversation: String?
        /// The prompt of its last request.
        var prompt = ""
        var busy = false
        var lastUsed: UInt64 = 0
    }

    private var slots: [Slot]
    private var clock: UInt64 = 0

    init(count: Int) {
        slots = Array(repeating: Slot(), count: max(count, 1))
    }

    /// The slot that `conversation` keeps, if any.
    func slot(of conversation: String) -> Int? {
        slots.firstIndex { $0.conversation == conversation }
    }

    /// A free slot for a request of `conversation` (nil: a one-off) on `prompt`, now held; nil
    /// when every slot is held.
    ///
    /// The conversation's own slot when it is free. Otherwise a slot no conversation keeps, the one
    /// whose last prompt begins most like this one (as llama-server itself picks), else the least
    /// recently used; failing that, the least recently used slot, whose conversation loses it. A
    /// conversation without a slot keeps the one it gets.
    mutating func take(conversation: String?, prompt: String) -> Int? {
        clock += 1
        let own = conversation.flatMap(slot(of:))
        let index: Int
        if let own, !slots[own].busy {
            index = own
        } else {
            let free = slots.indices.filter { !slots[$0].busy }
            guard let best = free.max(by: { rank($0, prompt) < rank($1, prompt) }) else { return nil }
            index = best
            if own == nil, let conversation {
                slots[index].conversation = conversation
            }
        }
        slots[index].busy = true
        slots[index].prompt = prompt
        slots[index].lastUsed = clock
        return index
    }

    /// Gives `slot` back.
    mutating func release(_ slot: Int) {
        guard slots.indices.contains(slot) else { return }
        slots[slot].busy = false
    }

    /// Slots no conversation keeps first; among those, the longest common beginning with
    /// `prompt` when it is more than a tenth of it; then the least recently used.
    private func rank(_ index: Int, _ prompt: String) -> (Int, Int, Int64) {
        let slot = slots[index]
        guard slot.conversation == nil else { return (0, 0, -Int64(slot.lastUsed)) }
        let shared = Self.commonPrefix(slot.prompt, prompt)
        return (1, shared * 10 > prompt.utf8.count ? shared : 0, -Int64(slot.lastUsed))
    }

    private static func commonPrefix(_ a: String, _ b: String) -> Int {
        var count = 0
        for (x, y) in zip(a.utf8, b.utf8) {
            guard x == y else { break }
            count += 1
        }
        return count
    }
}
