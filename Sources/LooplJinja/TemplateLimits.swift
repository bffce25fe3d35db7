/// Limits that stop a runaway template with an error instead of letting it hang or exhaust memory.
public struct TemplateLimits: Sendable, Hashable {
    /// The largest output, in UTF-8 bytes.
    public var maxOutputBytes: Int
    /// The most loop iterations and macro calls in one render.
    public var maxIterations: Int
    /// The deepest nesting of macro calls and recursive loops.
    public var maxCallDepth: Int
    /// The most bytes one string or list built during a render may hold (strings' UTF-8, 16 per
    /// list item), checked before it is built: concatenation, repetition, and the filters and
    /// methods that build strings or lists.
    public var maxAllocationBytes: Int

    public init(maxOutputBytes: Int = 16 << 20, maxIterations: Int = 1_000_000, maxCallDepth: Int = 64,
                maxAllocationBytes: Int = 64 << 20) {
        self.maxAllocationBytes = maxAllocationBytes
        self.maxOutputBytes = maxOutputBytes
        self.maxIterations = maxIterations
        self.maxCallDepth = maxCallDepth
    }
}
