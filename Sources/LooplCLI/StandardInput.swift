import Foundation
import Loopl

/// The whole of standard input, for a prompt given as `-`.
enum StandardInput {
    static func readAll() throws -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(data: data, encoding: .utf8) else {
            throw LooplError(.invalidRequest, "The prompt on standard input is not UTF-8 text.")
        }
        let prompt = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !prompt.isEmpty else { throw LooplError(.invalidRequest, "The prompt on standard input is empty.") }
        return prompt
    }
}
