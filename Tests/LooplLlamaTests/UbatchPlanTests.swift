@testable import LooplLlama
import Testing

/// How a step's sequences are grouped into passes over the weights, on depths the tests give.
struct UbatchPlanTests {
    /// A pass costs as much as 2,000 cells attended.
    static let plan = UbatchPlan(passCells: 2000)

    @Test func thePassCostComesFromTheModelsSizeAndItsCells() {
        // 92 MB of weights; 30 layers of 192 keys and 192 values, 2 bytes each: 23,040 bytes a cell.
        #expect(UbatchPlan(modelBytes: 92_000_000, layers: 30, keyValueWidth: 192).passCells == 3993)
        #expect(UbatchPlan(modelBytes: 0, layers: 30, keyValueWidth: 192).passCells == 256, "at least a block of cells")
        #expect(UbatchPlan.cells(1) == 256 && UbatchPlan.cells(256) == 256 && UbatchPlan.cells(257) == 512)
    }

    @Test func sequencesOfOneDepthShareAPass() {
        #expect(Self.plan.ranges(Array(repeating: .tokens(count: 1, depth: 512), count: 4)) == [0..<4])
        #expect(Self.plan.ranges([]) == [])
    }

    /// Three short conversations and a long one: together every token would attend over 3,328
    /// cells (15,312 in all); apart, two passes cost 9,632.
    @Test func aDeepSequenceBesideShallowOnesGetsAPassOfItsOwnListedFirst() {
        let slots: [UbatchPlan.Slot] = [.tokens(count: 1, depth: 768), .tokens(count: 1, depth: 768),
                                         .tokens(count: 1, depth: 768), .tokens(count: 1, depth: 3328)]
        #expect(Self.plan.ranges(slots) == [3..<4, 0..<3], "listed from the highest ids down, so that llama.cpp cannot join them")
        #expect(UbatchPlan(passCells: 100_000).ranges(slots) == [0..<4], "with weights that cost more than the depth, one pass")
    }

    @Test func paddingJoinsNeighboursOnlyWhenItIsCheap() {
        #expect(Self.plan.ranges([.tokens(count: 1, depth: 512), .padding(depth: 512), .tokens(count: 1, depth: 512)]) == [0..<3])
        #expect(Self.plan.ranges([.tokens(count: 1, depth: 512), .padding(depth: 8192), .tokens(count: 1, depth: 512)]) == [2..<3, 0..<1],
                "a deep idle sequence is not padded into a pass")
        #expect(Self.plan.ranges([.padding(depth: 256), .tokens(count: 1, depth: 256), .padding(depth: 256)]) == [1..<2],
                "no padding outside a pass")
    }

    @Test func aBarrierSplitsThePasses() {
        #expect(Self.plan.ranges([.tokens(count: 1, depth: 256), .barrier, .tokens(count: 1, depth: 256)]) == [2..<3, 0..<1])
    }
}
