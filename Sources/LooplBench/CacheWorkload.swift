import Loopl

/// The workloads of `loopl bench --workload shared-prefix|prompt-cache`: an agent's long system
/// prompt, shared by conversations that run side by side (`shared-prefix`, about 1,000 tokens),
/// or sent again by the same agent in a later process (`prompt-cache`, about 1,500 tokens with
/// the calculator tool and the chat template).
package enum CacheWorkload: String, Sendable, CaseIterable {
    case sharedPrefix = "shared-prefix"
    case promptCache = "prompt-cache"

    /// Rules in the system prompt: about 31 tokens each with the default model's tokenizer.
    var rules: Int {
        switch self {
        case .sharedPrefix: 32
        case .promptCache: 38
        }
    }

    /// The tools the agent offers.
    var tools: [ToolSpec] {
        switch self {
        case .sharedPrefix: []
        case .promptCache: AgentConversation.tools
        }
    }

    /// The system prompt of round `round`: the round's number comes first, so that no round
    /// starts like an earlier one and each evaluates its prefix afresh.
    func system(round: Int) -> String {
        let rules = (1...rules).map { number in
            "Rule \(number): when a question touches topic number \(number), answer in plain words, keep to the point and say which rule applied."
        }
        return "Session \(round). You are a careful assistant for a help desk.\n" + rules.joined(separator: "\n")
    }

    /// The conversation number `index` (from 0) of round `round`: the system prompt and a short
    /// question of its own.
    func messages(round: Int, index: Int) -> [Message] {
        [.system(system(round: round)), .user(Self.questions[index % Self.questions.count])]
    }

    static let questions = [
        "What is the capital of France?", "Name three colours of the rainbow.", "How many legs does a spider have?",
        "What does a thermometer measure?", "Which planet is nearest the sun?", "What is water made of?",
        "Who wrote Hamlet?", "What is the opposite of cold?",
    ]
}
