/// Whether a tool runs as soon as the model calls it, or only once a person approves the call.
public enum ToolApproval: String, Sendable, Hashable, Codable, CaseIterable {
    /// Ask the ``Agent``'s ``ToolApprover`` before each call.
    case ask
    /// Run at once.
    case allow
}

extension ToolApproval: ConfigValue {
    public init?(config json: JSONValue) { self.init(rawValue: json.stringValue ?? "") }
    public static var expectation: String { "\"ask\" or \"allow\"" }
}

extension Tool {
    /// This tool, with `approval` in place of its own ``Tool/approval``.
    public func withApproval(_ approval: ToolApproval?) -> any Tool {
        ApprovalSetTool(base: self, approval: approval)
    }
}

/// A tool whose approval was set by its user.
private struct ApprovalSetTool: Tool {
    let base: any Tool
    let approval: ToolApproval?
    var name: String { base.name }
    var description: String { base.description }
    var parameters: JSONValue { base.parameters }
    func call(_ arguments: JSONObject) async throws -> String { try await base.call(arguments) }
}
