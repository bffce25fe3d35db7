/// Tools that may change while an agent runs (an MCP server's list): an ``Agent`` asks for them
/// before every model turn.
public protocol ToolSource: Sendable {
    /// The tools as they are now.
    func currentTools() async -> [any Tool]
}
