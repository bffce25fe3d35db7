import Foundation
import Loopl

/// Asking the person at the terminal whether a tool call may run.
enum TerminalApproval {
    /// What an answer decides: y or yes (once), a or always (for the run), n or no (deny); nil
    /// for anything else.
    static func decision(_ answer: String) -> ApprovalDecision? {
        switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes": .once
        case "a", "always": .run
        case "n", "no": .deny
        default: nil
        }
    }

    /// An approver that reads each answer from `lines`, asking again through `say` after one it
    /// does not know; the end of input denies. The question itself comes with the
    /// ``AgentEvent/approvalRequested(_:)`` event.
    static func asking(_ lines: StandardInputLines, say: @escaping @Sendable (String) -> Void) -> ToolApprover {
        { _ in
            while let line = await lines.next() {
                if let decision = decision(line) { return decision }
                say("Answer y, a or n › ")
            }
            return .deny
        }
    }

    /// True when standard input is a terminal, so that a person can answer.
    static var canAsk: Bool { isatty(0) == 1 }
}
