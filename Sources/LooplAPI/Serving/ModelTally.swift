/// Where one backend's model stands for `GET /metrics`: loaded or not, the memory it was admitted
/// with, and its loads and unloads since the server started.
package struct ModelTally: Sendable, Hashable {
    /// Whether its model is loaded now.
    package var loaded = false
    /// The bytes it was admitted with while loaded or loading; 0 otherwise.
    package var memory = 0
    /// Its loads that succeeded.
    package var loads = 0
    /// Its unloads (on request, by keep-alive, or to make room).
    package var unloads = 0

    package init(loaded: Bool = false, memory: Int = 0, loads: Int = 0, unloads: Int = 0) {
        self.loaded = loaded
        self.memory = memory
        self.loads = loads
        self.unloads = unloads
    }
}
