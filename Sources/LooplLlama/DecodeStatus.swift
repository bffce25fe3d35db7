/// What `llama_decode` says of a batch, by the codes of llama.h.
enum DecodeStatus: Equatable {
    /// The batch was evaluated.
    case ok
    /// No KV cache slot was found for the batch (1); the memory is as it was before the call.
    case noSlot
    /// The abort callback stopped it (2); the ubatches already evaluated stay in the memory.
    case aborted
    /// The batch was invalid (-1); the memory is as it was before the call.
    case invalidBatch
    /// A fatal error (below -1), or a code llama.h does not name; evaluated ubatches stay in the memory.
    case failed(Int32)

    init(_ code: Int32) {
        switch code {
        case 0: self = .ok
        case 1: self = .noSlot
        case 2: self = .aborted
        case -1: self = .invalidBatch
        default: self = .failed(code)
        }
    }

    /// Why the batch failed, for an error message.
    var reason: String {
        switch self {
        case .ok: "succeeded"
        case .noSlot: "found no room in the KV cache for the batch"
        case .aborted: "was aborted"
        case .invalidBatch: "rejected the batch as invalid"
        case .failed(let code): "failed with status \(code)"
        }
    }
}
