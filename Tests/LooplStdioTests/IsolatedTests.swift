#if LOOPL_WITH_LLAMA
import Foundation
import Loopl
import Testing

/// The built-in `isolated` backend: the in-process engine behind `loopl worker`, whose crash
/// costs the run one retried turn.
@Suite(.serialized) struct IsolatedTests {
    @Test(.timeLimit(.minutes(5)))
    func aCrashedEngineCostsOneRetriedTurn() async throws {
        let host = try ChildProcess(executable: Fixtures.loopl, arguments: [
            "run", "--backend", "isolated", "--temperature", "0", "--max-tokens", "24", "--json", "Tell me about lighthouses.",
        ], output: .stream)
        var text = ""
        var killed: Int32?
        for await chunk in host.output {
            text += String(decoding: chunk, as: UTF8.self)
            if killed == nil, text.contains(#"{"event":"text""#), let worker = ProcessWatch.children(of: host.pid).first {
                kill(worker, SIGKILL)
                killed = worker
            }
        }
        let status = await host.waitForExit()
        #expect(status == 0, "\(host.lastLines)")
        #expect(killed != nil, "the run ended before its worker could be killed: \(text)")
        let events = try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        let retries = events.filter { $0["event"] == "retrying" }
        #expect(retries.count == 1, "\(text)")
        #expect(retries.first?["reason"]?.stringValue?.contains("worker --backend llama") == true, "\(retries)")
        #expect(events.last?["event"] == "finished" && events.last?["reason"] != nil, "\(text.suffix(300))")
    }
}
#endif
