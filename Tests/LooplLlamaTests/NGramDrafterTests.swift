import Loopl
@testable import LooplLlama
import Testing

/// Prompt-lookup drafts from a sequence's own tokens, and how their length follows acceptance.
@Suite struct NGramDrafterTests {
    @Test func theDraftIsWhatFollowedTheLatestEarlierOccurrenceOfTheLastNGram() {
        let history: [Int32] = [1, 2, 3, 9, 9, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]
        let draft = NGramDrafter.lookup(history, ngramMin: 2, ngramMax: 4, count: 3)
        #expect(draft == [4, 5, 6], "the latest occurrence of [1, 2, 3] is followed by 4 5 6, not 9 9")
    }

    @Test func theLongestNGramThatOccursWins() {
        // [5, 3] occurs late followed by 8; the 3-gram [4, 5, 3] only early, followed by 7.
        let history: [Int32] = [4, 5, 3, 7, 5, 3, 8, 4, 5, 3]
        #expect(NGramDrafter.lookup(history, ngramMin: 2, ngramMax: 3, count: 1) == [7])
        #expect(NGramDrafter.lookup(history, ngramMin: 2, ngramMax: 2, count: 1) == [8])
    }

    @Test func noOccurrenceGivesNoDraftAndTheDraftStopsAtTheHistorysEnd() {
        #expect(NGramDrafter.lookup([1, 2, 3, 4], ngramMin: 2, ngramMax: 4, count: 4).isEmpty)
        #expect(NGramDrafter.lookup([1, 2, 1, 2], ngramMin: 2, ngramMax: 2, count: 8) == [1, 2])
        #expect(NGramDrafter.lookup([7], ngramMin: 1, ngramMax: 4, count: 8).isEmpty)
    }

    @Test func noneNeverDrafts() {
        var drafter = NGramDrafter(.none)
        #expect(drafter.draft(after: [1, 2, 1, 2, 1, 2], limit: 8).isEmpty)
    }

    @Test func theLengthGrowsWithAcceptanceAndShrinksWithFailures() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 8, draftMin: 1))
        #expect(drafter.length == 1, "the first draft is draftMin long: a short match is weak evidence")
        for length in [1, 2, 4, 8] { drafter.record(drafted: length, accepted: length) }
        #expect(drafter.length == 8, "all held each time: doubled up to draftMax")
        drafter.record(drafted: 8, accepted: 3)
        #expect(drafter.length == 4, "three held: the next draft is one longer than what held")
        drafter.record(drafted: 4, accepted: 4)
        #expect(drafter.length == 8, "all held: doubled")
        drafter.record(drafted: 8, accepted: 0)
        #expect(drafter.length == 4, "none held: halved")
    }

    @Test func draftsThatKeepFailingPauseDraftingForLongerAndLonger() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 1, draftMin: 1))
        let history: [Int32] = [1, 2, 3, 1, 2]
        var pauses: [Int] = []
        #expect(drafter.draft(after: history, limit: 8) == [3])
        drafter.record(drafted: 1, accepted: 0)
        for _ in 0..<3 {
            var skipped = 0
            while drafter.draft(after: history, limit: 8).isEmpty, skipped < 100 { skipped += 1 }
            pauses.append(skipped)
            drafter.record(drafted: 1, accepted: 0)
        }
        #expect(pauses == [4, 8, 16], "each failed probe doubles the pause: \(pauses)")
    }

    /// A chance match of a few tokens that failed does not hold back a copy that starts after
    /// it; a failed draft from a long match pauses drafting whatever the match.
    @Test func aPauseAfterAFailedShortMatchEndsAtALongMatch() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 8, draftMin: 1, ngramMin: 2, ngramMax: 4))
        let short: [Int32] = [1, 2, 3, 9, 9, 1, 2], long: [Int32] = [5, 6, 7, 8, 3, 5, 6, 7, 8]
        #expect(drafter.draft(after: short, limit: 8) == [3])
        drafter.record(drafted: 1, accepted: 0)
        #expect(drafter.draft(after: short, limit: 8).isEmpty, "a short match waits out the pause")
        #expect(drafter.draft(after: long, limit: 8) == [3], "a long match ends the pause")
        drafter.record(drafted: 1, accepted: 0)
        #expect(drafter.draft(after: long, limit: 8).isEmpty, "after a failed long match, the pause holds")
    }

    @Test func thePauseBetweenProbesStaysShort() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 1, draftMin: 1))
        let history: [Int32] = [1, 2, 3, 1, 2]
        var longest = 0
        for _ in 0..<12 {
            var skipped = 0
            while drafter.draft(after: history, limit: 8).isEmpty, skipped < 1000 { skipped += 1 }
            longest = max(longest, skipped)
            drafter.record(drafted: 1, accepted: 0)
        }
        #expect(longest == NGramDrafter.longestPause, "after 12 failed probes the pause is \(longest) steps")
    }

    /// With other sequences in the step, a draft costs about what it saves: only a match of
    /// ngramMax tokens is drafted from, and none while fewer than crowdedRate of the drafts held.
    @Test func aCrowdedStepDraftsOnlyFromLongMatchesWhileDraftsHold() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 8, draftMin: 1, ngramMin: 2, ngramMax: 3))
        for length in [1, 2] { drafter.record(drafted: length, accepted: length) }
        let twoOnly: [Int32] = [1, 2, 7, 8, 9, 5, 1, 2]
        #expect(drafter.draft(after: twoOnly, limit: 8) == [7, 8, 9, 5])
        #expect(drafter.draft(after: twoOnly, limit: 8, crowded: true).isEmpty, "a 2-token match drafts nothing when crowded")
        let three: [Int32] = [1, 2, 3, 7, 8, 9, 5, 1, 2, 3]
        #expect(drafter.draft(after: three, limit: 8, crowded: true) == [7, 8, 9, 5])
        drafter.record(drafted: 4, accepted: 2)
        #expect(drafter.draft(after: three, limit: 8, crowded: true).isEmpty, "half a draft held: no draft in a crowded step")
        #expect(!drafter.draft(after: three, limit: 8).isEmpty, "alone, it drafts")
        var skipped = 1
        while drafter.draft(after: three, limit: 8, crowded: true).isEmpty, skipped < 100 { skipped += 1 }
        #expect((2...8).contains(skipped), "crowded steps drafted again after \(skipped) steps")
    }

    /// A copy under way pays most with few long steps: after a draft that held entirely, a
    /// match of copyMatch tokens drafts draftMax at once; not after one that failed, nor crowded.
    @Test func aLongMatchAfterADraftThatHeldDraftsDraftMaxAtOnce() {
        let passage = (100..<140).map(Int32.init)
        let history = passage + passage.prefix(NGramDrafter.copyMatch + 1)
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 20, draftMin: 1))
        #expect(drafter.draft(after: history, limit: 64).count == 1, "no draft held yet: draftMin")
        drafter.record(drafted: 1, accepted: 1)
        #expect(drafter.draft(after: history, limit: 64) == Array(passage[13..<33]), "a held draft and a 12-token match: draftMax")
        #expect(drafter.draft(after: history, limit: 5).count == 5, "the limit still caps it")
        #expect(drafter.draft(after: history, limit: 64, crowded: true).count == 2, "crowded: the doubled length")
        drafter.record(drafted: 2, accepted: 1)
        #expect(drafter.draft(after: history, limit: 64).count == 2, "after a draft that failed in part: its length")
    }

    /// The benchmark's row whose drafts all fail: the same draft but for its first token.
    @Test func aSpoilingDrafterChangesOnlyTheFirstToken() {
        var speculation = Speculation(kind: .ngram, draftMax: 8)
        speculation.spoilsDrafts = true
        var drafter = NGramDrafter(speculation)
        drafter.record(drafted: 1, accepted: 1)
        let history: [Int32] = [1, 2, 3, 4, 5, 1, 2]
        #expect(drafter.draft(after: history, limit: 8) == [2, 4], "the lookup gives 3 4")
    }

    @Test func theLimitCapsTheDraft() {
        var drafter = NGramDrafter(Speculation(kind: .ngram, draftMax: 8))
        for length in [1, 2, 4] { drafter.record(drafted: length, accepted: length) }
        #expect(drafter.draft(after: [1, 2, 3, 4, 5, 1, 2], limit: 2) == [3, 4])
        #expect(drafter.draft(after: [1, 2, 3, 4, 5, 1, 2], limit: 0).isEmpty)
    }
}
