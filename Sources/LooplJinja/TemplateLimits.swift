/// Limits that stop a runaway template with an error instead of letting it hang or exhaust memory.
public struct TemplateLimits: Sendable, Hashable {
    /// The largest output, in UTF-8 bytes.
    public var maxOutputBytes: Int
    /// The most loop iterations and macro calls in one render.
    public var maxIterations: Int
    /// The deepest nesting of macro calls and recursive loops.
    public var maxCallDepth: Int

    public init(maxOutputBytes: Int = 16 << 20, maxIterations: Int = 1_000_000, maxCallDepth: Int = 64) {
        self.maxOutputBytes = maxOutputBytes
        self.maxIterations = maxIterations
        self.maxCallDepth = maxCallDepth
    }
}
