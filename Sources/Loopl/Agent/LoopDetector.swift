/// Notices a tool called again and again with the same arguments in one run.
struct LoopDetector {
    static let threshold = 3
    private var counts: [String: Int] = [:]

    /// Counts `call`; true when this is exactly the ``threshold``-th identical call.
    mutating func record(_ call: ToolCall) -> Bool {
        let key = call.name + "\u{0}" + JSONValue.object(call.arguments).jsonText()
        counts[key, default: 0] += 1
        return counts[key] == Self.threshold
    }
}
