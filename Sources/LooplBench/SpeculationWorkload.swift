import Loopl

/// The prompts of `loopl bench --workload`: `copy`, an answer that repeats a 260-word passage
/// given in the prompt (drafts from the prompt hold), and `free`, a story (they mostly fail).
/// The passage is in triple quotes: without them, the default model writes about the passage
/// instead of repeating it.
package enum SpeculationWorkload: String, Sendable, CaseIterable {
    case copy
    case free

    /// The conversation the workload sends; with others at once, the `index`th of `count`, which
    /// says which it is first.
    func messages(_ index: Int = 0, of count: Int = 1) -> [Message] {
        [.user(count > 1 ? "Conversation \(index + 1) of \(count). \(request)" : request)]
    }

    private var request: String {
        switch self {
        case .copy: "Repeat the following passage exactly, word for word, and write nothing else.\n\n\"\"\"\n\(Self.passage)\n\"\"\""
        case .free: "Write a long story about a fox who learns to sail, with a storm, a lighthouse and a friend."
        }
    }

    /// About 260 words.
    static let passage = """
        The harbour town woke before the sun. Fishermen carried nets down the stone steps, the baker \
        opened his shutters, and the ferry sounded its horn twice across the grey water. On the hill \
        above the square stood the old lighthouse, painted white and red, its lamp long replaced by a \
        small electric beacon that blinked every four seconds. Children said a keeper still lived in \
        the tower, though nobody had seen him for years. Every morning a basket of bread was left at \
        the foot of the stairs, and every evening the basket was gone. The postman, who had worked the \
        coast road for thirty years, claimed he once delivered a letter addressed simply to the keeper, \
        and that the next day a reply waited in the basket, written in neat blue ink on paper that smelled \
        of salt. Nobody believed him, but nobody could prove him wrong. In winter the storms came in from \
        the west, and the boats stayed tied in the harbour for days at a time. When the \
        wind dropped, the town would walk along the sea wall to count the damage: a fallen fence, a \
        broken window, once a whole shed carried into the bay. The lighthouse always stood, its small \
        beacon blinking through the rain, and in the morning the basket was always empty. One spring a \
        girl from the school climbed the stairs at dawn, determined to meet the keeper at last. She found \
        the door open, a table set for two, a kettle still warm on the stove, and no one there at all.
        """
}
