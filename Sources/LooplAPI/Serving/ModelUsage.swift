import Loopl

/// What a loaded (or loading) model takes and how it is used, for `loopl ps`: its memory, the
/// requests on it, how long it has been idle and when its keep-alive unloads it.
package struct ModelUsage: Sendable, Hashable {
    /// The bytes it was admitted with: the estimate of its weights and KV cache.
    package var memory: Int
    /// The requests running on it.
    package var inFlight: Int
    /// The requests waiting for a place on it.
    package var queued: Int
    /// The whole seconds since its last request ended (or its load); nil while requests run or wait.
    package var idleSeconds: Int?
    /// When its keep-alive unloads it if it stays idle, in Unix seconds; nil: it stays until
    /// unloaded, or requests run or wait on it (its keep-alive starts when they end).
    package var expiresAt: Int?

    package init(memory: Int, inFlight: Int = 0, queued: Int = 0, idleSeconds: Int? = nil, expiresAt: Int? = nil) {
        self.memory = memory
        self.inFlight = inFlight
        self.queued = queued
        self.idleSeconds = idleSeconds
        self.expiresAt = expiresAt
    }

    /// Its members of a `/v1/models` entry: `memory`, `in_flight`, `queued`, `idle_seconds` and
    /// `expires_at` (null: never, or busy).
    func add(to object: inout JSONObject) {
        object["memory"] = .integer(memory)
        object["in_flight"] = .integer(inFlight)
        object["queued"] = .integer(queued)
        object["idle_seconds"] = idleSeconds.map(JSONValue.integer) ?? .null
        object["expires_at"] = expiresAt.map(JSONValue.integer) ?? .null
    }
}
