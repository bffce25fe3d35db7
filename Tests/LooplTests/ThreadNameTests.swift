import Foundation
import Loopl
import Testing

@Suite struct ThreadNameTests {
    @Test(.timeLimit(.minutes(1)))
    func aStartedThreadCarriesItsName() async {
        let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread.start(named: "loopl test") {
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                continuation.resume(returning: comm.trimmingCharacters(in: .newlines))
            }
        }
        #expect(name == "loopl test")
    }
}
