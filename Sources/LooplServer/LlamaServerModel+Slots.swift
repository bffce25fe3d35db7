import Loopl

extension LlamaServerModel {
    /// What llama-server does with a slot's state in its `--slot-save-path` folder.
    package enum SlotAction: String, Sendable {
        case save
        case restore
    }

    /// Saves a slot's prompt state to `file` in the child's `--slot-save-path` folder, or
    /// restores it from there (`POST /slots/ID?action=save|restore`); throws when the child is
    /// not running or llama-server refuses (no `--slot-save-path`, no such file).
    package func slot(_ id: Int, _ action: SlotAction, file: String) async throws {
        guard let child = await session.currentChild else {
            throw LooplError(.closed, "No llama-server child runs to \(action.rawValue) slot \(id).")
        }
        let answer = try await child.endpoint.fetch("/slots/\(id)?action=\(action.rawValue)", method: "POST",
                                                    body: ["filename": .string(file)], timeout: 120)
        guard answer.status == 200 else {
            throw LooplError(.httpError, "llama-server refused to \(action.rawValue) slot \(id) (\(answer.status)): \(answer.text.prefix(300))")
        }
    }
}
