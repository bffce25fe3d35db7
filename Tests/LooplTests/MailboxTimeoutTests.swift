@testable import Loopl
import Testing

/// A receive whose time is already up (a handshake that used all of its time before this step)
/// ends, even when its timer fires before the receiver has started to wait.
@Suite struct MailboxTimeoutTests {
    @Test(.timeLimit(.minutes(1)))
    func aZeroTimeoutAlwaysEnds() async {
        let timeouts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let mailbox = Mailbox()
                    var count = 0
                    for _ in 0..<5000 {
                        do {
                            _ = try await mailbox.receive(timeout: .zero, cancellable: true)
                        } catch is MailboxTimeout {
                            count += 1
                        } catch {}
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(timeouts == 8 * 5000)
    }
}
