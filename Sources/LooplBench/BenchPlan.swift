/// The order of a bench run: round by round, every backend once and then the reference, so that
/// drift on a shared machine hits all of them alike.
struct BenchPlan: Sendable, Equatable {
    /// What one step measures.
    enum Target: Sendable, Equatable {
        case backend(String)
        case reference
    }

    /// One step: its round (from 1), whether it counts, and what it measures.
    struct Step: Sendable, Equatable {
        let round: Int
        let measured: Bool
        let target: Target
    }

    let steps: [Step]

    init(backends: [String], warmup: Int, runs: Int, reference: Bool) {
        var steps: [Step] = []
        for round in 1...(warmup + runs) {
            let measured = round > warmup
            steps += backends.map { Step(round: round, measured: measured, target: .backend($0)) }
            if reference { steps.append(Step(round: round, measured: measured, target: .reference)) }
        }
        self.steps = steps
    }
}
