/// Plans how many prompt tokens each decode step takes, so that the sequences that are generating
/// get a token at least every ``budget``.
///
/// It learns what a step costs on this machine and model as the loop runs: a step that decodes
/// only generated tokens (``decodeStep``), and each prompt token a step adds beside them
/// (``promptToken``, from the pass of prompt chunks the decode loop times on its own), as moving
/// averages. While some sequence generates, the prompts get the tokens that fit ``aim`` of the
/// budget after the decode step (at least as many as the decode step's time
/// and ``minimumChunk``, so that they always move on); when none generates they get the whole batch. Several prompts share the room
/// evenly, each at most what it has left, the oldest first for what does not divide.
struct StepPlanner: Sendable, Equatable {
    /// The fewest prompt tokens a step takes while others generate, however tight the budget.
    static let minimumChunk = 16
    /// The weight of a new measurement in the moving averages.
    static let weight = 0.25
    /// The share of the budget a step is planned to take: steps of the same plan vary by some per
    /// cent from one to the next, and the budget is a limit, not a mean.
    static let aim = 0.85

    /// The longest a step should take while sequences generate.
    let budget: Duration
    /// What a step that decodes generated tokens only costs; nil until one is measured.
    private(set) var decodeStep: Duration?
    /// What one prompt token adds to a step beside generated tokens; nil until such a step is
    /// measured (prompts alone, in whole batches, cost less a token and say little of it).
    private(set) var promptToken: Duration?

    init(budget: Duration, decodeStep: Duration? = nil, promptToken: Duration? = nil) {
        self.budget = budget
        self.decodeStep = decodeStep
        self.promptToken = promptToken
    }

    /// The prompt tokens of each prompt in this step, in the order given (the prompts' arrival
    /// order, each as the count of its tokens still to evaluate): `room` tokens at most (what the
    /// batch has left), fewer when some sequence is `generating`, so that the step fits the budget.
    func plan(room: Int, generating: Bool, prompts: [Int]) -> [Int] {
        Self.share(min(room, generating ? chunk : room), among: prompts)
    }

    /// The prompt tokens that fit the budget beside a decode step. When the decode step alone
    /// takes most of the budget or more (a slow or loaded machine), the prompt still gets as much
    /// time as the decode step, so that a step takes at most twice as long as without it.
    var chunk: Int {
        guard let promptToken, promptToken > .zero else { return Self.minimumChunk }
        let decode = decodeStep ?? .zero
        let tokens = max(budget * Self.aim - decode, decode) / promptToken
        guard tokens.isFinite else { return Self.minimumChunk }
        return Int(max(min(tokens, 1e9), Double(Self.minimumChunk)))
    }

    /// `room` split evenly over prompts with `remaining` tokens each (in arrival order): one that
    /// needs less than its share takes what it needs and leaves the rest to the others; what does
    /// not divide goes a token each to the oldest.
    static func share(_ room: Int, among remaining: [Int]) -> [Int] {
        var shares = Array(repeating: 0, count: remaining.count)
        var room = max(room, 0)
        var open = remaining.indices.filter { remaining[$0] > 0 }
        while room > 0, !open.isEmpty {
            let each = room / open.count
            if each == 0 {
                for index in open.prefix(room) { shares[index] += 1 }
                break
            }
            for index in open {
                let taken = min(each, remaining[index] - shares[index])
                shares[index] += taken
                room -= taken
            }
            open.removeAll { shares[$0] == remaining[$0] }
        }
        return shares
    }

    /// Learns from a step that took `duration` to evaluate `promptTokens` prompt tokens, beside
    /// generated tokens when `generating` (prompts alone teach nothing of a step beside them). A
    /// few prompt tokens say little of what one costs.
    mutating func record(promptTokens: Int, generating: Bool, duration: Duration) {
        guard generating else { return }
        if promptTokens == 0 {
            decodeStep = Self.average(decodeStep, duration)
        } else if promptTokens >= Self.minimumChunk {
            promptToken = Self.average(promptToken, max(duration - (decodeStep ?? .zero), .zero) / promptTokens)
        }
    }

    /// Learns from a pass that evaluated `chunkTokens` prompt tokens on their own, beside a pass
    /// of generated tokens, in `duration`.
    mutating func record(chunkTokens: Int, duration: Duration) {
        guard chunkTokens >= Self.minimumChunk else { return }
        promptToken = Self.average(promptToken, duration / chunkTokens)
    }

    private static func average(_ old: Duration?, _ new: Duration) -> Duration {
        guard let old else { return new }
        return old * (1 - weight) + new * weight
    }
}
