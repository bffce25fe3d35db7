import Foundation
@testable import LooplServer
import Testing

/// How the host hands out a child's slots and chooses among replicas (no server needed).
@Suite struct SlotTableTests {
    /// A slot that must be free.
    static func take(_ table: inout SlotTable, _ conversation: String?, _ prompt: String) throws -> Int {
        let slot = table.take(conversation: conversation, prompt: prompt)
        return try #require(slot)
    }

    @Test func aConversationKeepsItsSlot() throws {
        var table = SlotTable(count: 4)
        let a = try Self.take(&table, "a", "system a1")
        let b = try Self.take(&table, "b", "system b1")
        #expect(a != b)
        table.release(a)
        table.release(b)
        let taken1 = table.take(conversation: "b", prompt: "system b1 b2")
        #expect(taken1 == b)
        let taken2 = table.take(conversation: "a", prompt: "system a1 a2")
        #expect(taken2 == a)
    }

    @Test func noSlotIsHandedOutTwice() throws {
        var table = SlotTable(count: 3)
        var held: Set<Int> = []
        for index in 0..<3 { held.insert(try Self.take(&table, index == 0 ? nil : "c\(index)", "p")) }
        #expect(held == [0, 1, 2])
        let taken3 = table.take(conversation: nil, prompt: "p")
        #expect(taken3 == nil)
        let taken4 = table.take(conversation: "c1", prompt: "p")
        #expect(taken4 == nil, "a conversation's busy slot was given again")
        table.release(1)
        let taken5 = table.take(conversation: "new", prompt: "p")
        #expect(taken5 == 1)
    }

    @Test func conversationsBeyondTheSlotsEvictTheLeastRecentlyUsed() throws {
        var table = SlotTable(count: 2)
        for name in ["a", "b"] { table.release(try Self.take(&table, name, name)) }
        table.release(try Self.take(&table, "a", "a a"))
        // b was used less recently than a: c takes b's slot, and a keeps its own.
        let b = try #require(table.slot(of: "b"))
        let c = try Self.take(&table, "c", "c")
        #expect(c == b)
        #expect(table.slot(of: "b") == nil && table.slot(of: "c") == c)
        #expect(table.slot(of: "a") != nil && table.slot(of: "a") != c)
    }

    @Test func aConversationWhoseSlotIsBusyRunsElsewhereAndKeepsItsSlot() throws {
        var table = SlotTable(count: 2)
        let own = try Self.take(&table, "a", "a")
        let other = try Self.take(&table, "a", "a")
        #expect(other != own)
        table.release(own)
        table.release(other)
        #expect(table.slot(of: "a") == own)
    }

    @Test func aOneOffRequestPrefersAFreeSlotWithItsPromptAndSparesConversations() throws {
        var table = SlotTable(count: 3)
        table.release(try Self.take(&table, "kept", "the same long prompt"))
        let first = try Self.take(&table, nil, "the same long prompt")
        #expect(first != table.slot(of: "kept"), "a one-off took a conversation's slot while others were free")
        table.release(first)
        let empty = try Self.take(&table, nil, "something else entirely")
        #expect(empty != first, "the least recently used free slot was not taken")
        table.release(empty)
        let taken6 = table.take(conversation: nil, prompt: "the same long prompt, and more")
        #expect(taken6 == first,
                "the slot holding the prompt's beginning was not chosen")
    }

    @Test func replicasAreChosenByFewestInFlightAndConversationsStick() throws {
        let now = ContinuousClock.now
        var upstreams = (0..<3).map { _ in Upstream(url: URL(string: "http://127.0.0.1:1"), parallel: 4) }
        upstreams[0].inFlight = 2
        upstreams[1].inFlight = 1
        upstreams[2].inFlight = 1
        upstreams[1].lastChosen = 5
        upstreams[2].lastChosen = 3
        #expect(upstreams.choose(home: nil, skipping: [], now: now) == 2, "a tie goes to the least recently chosen")
        #expect(upstreams.choose(home: 0, skipping: [], now: now) == 0, "a conversation left its replica")
        #expect(upstreams.choose(home: 0, skipping: [0], now: now) == 2)
        upstreams[2].failed(backoff: .seconds(10), now: now)
        #expect(upstreams.choose(home: 2, skipping: [], now: now) == 1, "a replica in back-off was chosen")
        #expect(upstreams.choose(home: nil, skipping: [0, 1], now: now) == 2, "with every other skipped, one in back-off is tried")
        #expect(upstreams.choose(home: nil, skipping: [], now: now + .seconds(11)) == 2, "the back-off did not end")
        #expect(upstreams.choose(home: nil, skipping: [0, 1, 2], now: now) == nil)
        upstreams[2].failed(backoff: .seconds(10), now: now)
        #expect(upstreams[2].retryAt == now + .seconds(20), "the back-off did not double")
    }
}
