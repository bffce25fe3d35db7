/// Where a served backend's model is in its life: not started, starting, running, or failed on
/// its last start (with the reason, which the next request tries again after).
package enum ModelState: Sendable, Hashable {
    case unloaded
    case loading
    case loaded
    case failed(String)

    /// The `state` of a `/v1/models` entry.
    package var name: String {
        switch self {
        case .unloaded: "unloaded"
        case .loading: "loading"
        case .loaded: "loaded"
        case .failed: "failed"
        }
    }

    /// The reason of a failed start; nil otherwise.
    package var error: String? {
        if case .failed(let reason) = self { reason } else { nil }
    }
}
