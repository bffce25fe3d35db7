import Synchronization

/// What llama.cpp's abort callback asks between the graph's operations: stop the decode under
/// way only when the model is closing or when every request in the batch has been cancelled, so
/// that cancelling one request never costs the others a step.
final class BatchAbort: @unchecked Sendable {
    private let closing = Atomic(false)
    // Written by the decode loop between decodes only; read by llama.cpp during a decode, on
    // the thread that called it.
    private var members: [LlamaRequest] = []

    /// Makes the current and every later decode stop.
    func close() { closing.store(true, ordering: .relaxed) }

    var isClosing: Bool { closing.load(ordering: .relaxed) }

    /// The requests in the batch about to be decoded.
    func watch(_ requests: some Sequence<LlamaRequest>) {
        members.removeAll(keepingCapacity: true)
        members.append(contentsOf: requests)
    }

    /// Whether the decode under way should stop.
    var shouldAbort: Bool {
        if isClosing { return true }
        guard !members.isEmpty else { return false }
        for member in members where !member.isCancelled { return false }
        return true
    }
}
