import Foundation
import Loopl

/// Saves two different sessions to one file in turn, forever, so that a kill lands mid-save.
///
/// Before the loop, `FILE.a` and `FILE.b` receive the two expected contents and `FILE` the first;
/// then "saving" is printed. Whatever moment the process dies, `FILE` must equal one of the two.
struct SaveLoop {
    let path: String

    /// A conversation of `turns` exchanges, large enough (hundreds of kilobytes) that a save takes a while.
    static func session(turns: Int, tag: String) -> [Message] {
        (0..<turns).flatMap { turn -> [Message] in
            [.user("Question \(turn) of session \(tag): " + String(repeating: "what is the lighthouse for? ", count: 8)),
             .assistant("Answer \(turn) of session \(tag): " + String(repeating: "it guides ships home at night. ", count: 12))]
        }
    }

    func run() throws -> Never {
        let sessions = [Self.session(turns: 300, tag: "a"), Self.session(turns: 450, tag: "b")]
        try SessionFile.save(sessions[0], to: path + ".a")
        try SessionFile.save(sessions[1], to: path + ".b")
        try SessionFile.save(sessions[0], to: path)
        say("saving")
        var index = 1
        while true {
            try SessionFile.save(sessions[index % 2], to: path)
            index += 1
        }
    }
}
