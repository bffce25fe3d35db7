import Loopl
@testable import LooplCLI
import Testing

/// `loopl ps`'s table of the loaded models' `/v1/models` entries.
@Suite struct PsCommandTests {
    static let now = 1_765_080_000

    @Test func aTableListsEachLoadedModelWithItsMemoryIdleTimeRequestsAndKeepAlive() throws {
        let entries: [JSONValue] = [
            ["id": "gemma", "kind": "llama", "state": "loaded", "size": 253_113_024, "memory": 320_000_000,
             "in_flight": 0, "queued": 0, "idle_seconds": 42, "expires_at": .integer(Self.now + 258)],
            ["id": "echo", "kind": "stdio", "state": "loaded", "memory": 0, "in_flight": 2, "queued": 1,
             "idle_seconds": .null, "expires_at": .null],
            ["id": "big", "kind": "server", "state": "loading", "size": 9_000_000_000, "memory": 12_000_000_000,
             "in_flight": 0, "queued": 0, "idle_seconds": 3, "expires_at": .null],
        ]
        let table = PsCommand.table(entries, now: Self.now)
        #expect(table == """
            NAME   KIND    STATE    MEMORY    IDLE  IN FLIGHT      UNTIL
            gemma  llama   loaded   305 MiB   42 s  0              in 4 min
            echo   stdio   loaded   -         -     2 (+1 queued)  busy
            big    server  loading  11.2 GiB  3 s   0              forever

            """)
    }

    @Test func durationsReadAsPeopleSayThem() {
        #expect([59, 119, 120, 3599, 3600, 7260, 172_800, -5].map(PsCommand.duration)
                == ["59 s", "119 s", "2 min", "59 min", "1 h", "2 h 1 min", "2 days", "0 s"])
    }
}
