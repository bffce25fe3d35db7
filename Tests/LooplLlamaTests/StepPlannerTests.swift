@testable import LooplLlama
import Testing

/// The rule that sizes each decode step's prompt chunks, on costs the tests give: no clock runs.
struct StepPlannerTests {
    /// A budget of 200 ms (170 aimed at), a decode step of 25 ms and 4 ms a prompt token: 145 ms for the prompt.
    static let measured = StepPlanner(budget: .milliseconds(200), decodeStep: .milliseconds(25), promptToken: .milliseconds(4))

    /// Within a microsecond: the averages are products of durations by fractions.
    static func near(_ measured: Duration?, _ expected: Duration) -> Bool {
        guard let measured else { return false }
        return abs((measured - expected) / .microseconds(1)) < 1
    }

    @Test func aChunkBesideGeneratingTokensFitsTheBudgetAfterTheDecodeStep() {
        #expect(Self.measured.chunk == 36, "145 ms / 4 ms")
        #expect(Self.measured.plan(room: 512, generating: true, prompts: [3000]) == [36])
        #expect(Self.measured.plan(room: 20, generating: true, prompts: [3000]) == [20], "no more than the batch holds")
        #expect(Self.measured.plan(room: 512, generating: true, prompts: [30]) == [30], "no more than the prompt has left")
    }

    @Test func withNothingGeneratingPromptsTakeWholeBatches() {
        #expect(Self.measured.plan(room: 512, generating: false, prompts: [3000]) == [512])
        #expect(Self.measured.plan(room: 512, generating: false, prompts: [3000, 3000]) == [256, 256])
    }

    @Test func beforeAnyStepIsMeasuredTheFirstChunkIsTheSmallest() {
        let fresh = StepPlanner(budget: .milliseconds(200))
        #expect(fresh.plan(room: 512, generating: true, prompts: [3000]) == [StepPlanner.minimumChunk])
        #expect(fresh.plan(room: 512, generating: false, prompts: [3000]) == [512])
    }

    /// A decode step alone that takes most of the budget or more (a slow or loaded machine)
    /// still lets the prompt move on: it gets as much time as the decode step, and 16 tokens at least.
    @Test func aBudgetTheDecodeStepAloneExceedsStillMovesThePromptOn() {
        let slow = StepPlanner(budget: .milliseconds(200), decodeStep: .milliseconds(300), promptToken: .milliseconds(4))
        #expect(slow.plan(room: 512, generating: true, prompts: [3000]) == [75], "300 ms / 4 ms")
        let tight = StepPlanner(budget: .milliseconds(20), decodeStep: .milliseconds(15), promptToken: .milliseconds(4))
        #expect(tight.plan(room: 512, generating: true, prompts: [3000]) == [StepPlanner.minimumChunk])
        let free = StepPlanner(budget: .milliseconds(200), decodeStep: .milliseconds(25), promptToken: .zero)
        #expect(free.plan(room: 512, generating: true, prompts: [3000]) == [StepPlanner.minimumChunk], "a cost of 0 is not measured yet")
    }

    /// The costs come from the steps as they run: decode steps alone, then the passes of prompt
    /// chunks beside them, each a moving average that follows a machine that slows down.
    @Test func theCostsAreLearnedFromTheStepsAndFollowAChange() {
        var planner = StepPlanner(budget: .milliseconds(200))
        planner.record(promptTokens: 512, generating: false, duration: .milliseconds(1024))
        #expect(planner.promptToken == nil, "prompts alone, in whole batches, say little of a chunk beside generating tokens")
        planner.record(promptTokens: 0, generating: true, duration: .milliseconds(25))
        #expect(planner.decodeStep == .milliseconds(25))
        planner.record(chunkTokens: 64, duration: .milliseconds(64 * 4))
        #expect(planner.promptToken == .milliseconds(4), "a pass of chunks on its own gives the cost of a token")
        #expect(planner.chunk == 36)
        planner.record(promptTokens: 20, generating: true, duration: .milliseconds(25 + 20 * 8))
        #expect(Self.near(planner.promptToken, .milliseconds(5)), "a step that ended a prompt beside generated tokens: a quarter of its cost")
        #expect(planner.chunk == 29)
        for _ in 0..<40 { planner.record(chunkTokens: 20, duration: .milliseconds(20 * 8)) }
        #expect(planner.chunk == 18, "145 ms / 8 ms once the slower cost has settled")
        planner.record(promptTokens: 0, generating: true, duration: .milliseconds(65))
        #expect(Self.near(planner.decodeStep, .milliseconds(35)), "a quarter of the new cost")
    }

    /// A step with a few prompt tokens says little of what one costs: it is left out.
    @Test func aStepWithAFewPromptTokensTeachesNothing() {
        var planner = Self.measured
        planner.record(promptTokens: 3, generating: true, duration: .seconds(1))
        planner.record(chunkTokens: 3, duration: .seconds(1))
        #expect(planner == Self.measured)
    }

    @Test func severalPromptsShareTheRoomEvenlyTheOldestFirst() {
        #expect(StepPlanner.share(100, among: [3000, 3000, 3000]) == [34, 33, 33])
        #expect(StepPlanner.share(100, among: [10, 3000, 3000]) == [10, 45, 45], "what one needs less of goes to the others")
        #expect(StepPlanner.share(2, among: [5, 5, 5]) == [1, 1, 0])
        #expect(StepPlanner.share(100, among: [0, 3000]) == [0, 100])
        #expect(StepPlanner.share(100, among: [20, 30]) == [20, 30])
        #expect(StepPlanner.share(0, among: [20, 30]) == [0, 0])
        #expect(StepPlanner.share(10, among: []) == [])
    }

    /// Prompts that arrive one after another while others generate: every step, every prompt
    /// waiting gets tokens, so a short one that arrives behind a long one is done long before it.
    @Test func noPromptWaitsBehindAnother() {
        var left: [(name: String, tokens: Int)] = [("long", 1000)]
        let arrivals = [3: ("short", 50), 5: ("second long", 1000)]
        var finished: [String: Int] = [:]
        for step in 0..<200 where !left.isEmpty || finished.count < 3 {
            if let arrival = arrivals[step] { left.append(arrival) }
            let shares = Self.measured.plan(room: 512, generating: true, prompts: left.map(\.tokens))
            #expect(shares.allSatisfy { $0 > 0 }, "step \(step): \(shares) for \(left)")
            #expect(shares.reduce(0, +) <= Self.measured.chunk)
            for index in left.indices { left[index].tokens -= shares[index] }
            for done in left where done.tokens == 0 { finished[done.name] = step }
            left.removeAll { $0.tokens == 0 }
        }
        #expect(finished.count == 3)
        #expect(finished["short", default: .max] < 10, "\(finished)")
        #expect(finished["long", default: .max] < finished["second long", default: .max], "\(finished)")
    }
}
