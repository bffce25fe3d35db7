import Loopl

/// The body of `POST /loopl/v1/runs`: `model`, `messages` (new messages, the last the user's)
/// and/or `session` (the saved conversation they continue), `tools` and `mcp` (names, as
/// `loopl run --tools` and `--mcp` take), `toolChoice`, `temperature`, `think`, `maxIterations`
/// and `maxTokens`.
package struct RunRequest: Sendable {
    package var model: String?
    /// `keep_alive`: how long the model stays loaded after this request; nil: its backend's.
    package var keepAlive: KeepAlive?
    /// The conversation to continue; nil starts a new one.
    package var session: String?
    /// The messages before the user's prompt, added to the session's.
    package var earlier: [Message]
    /// The user's prompt: the last message's text.
    package var prompt: String
    package var tools: [String]
    package var mcp: [String]
    package var toolChoice: ToolChoice
    package var maxIterations: Int
    package var generation: GenerationOptions

    package init(body: [UInt8]) throws(APIError) {
        let root = try RequestField.body(RequestField.parse(body: body).value)
        model = try root.member("model")?.string()
        keepAlive = try root.keepAliveMember()
        session = try root.member("session")?.string()
        if let session, !SessionStore.isValidId(session) {
            throw .invalidRequest("`session` must be a session id from /loopl/v1/sessions (1 to 64 letters, digits, - or _), not '\(session.prefix(80))'.",
                                  param: "session")
        }
        let messages = try Self.messages(root.required("messages"))
        guard case .user(let text)? = messages.last else {
            throw .invalidRequest("The last of `messages` must be the user's message: the prompt the run answers.", param: "messages")
        }
        earlier = Array(messages.dropLast())
        prompt = text
        tools = try Self.names(root.member("tools"))
        mcp = try Self.names(root.member("mcp"))
        toolChoice = ToolChoice(name: try root.member("toolChoice")?.string() ?? "auto")
        maxIterations = try root.member("maxIterations").map { field throws(APIError) in
            let n = try field.integer(atLeast: 1)
            guard n <= 100 else { throw field.error("must be 1 to 100") }
            return n
        } ?? 8
        generation = GenerationOptions(maxTokens: try root.member("maxTokens").map { field throws(APIError) in
            let n = try field.integer(atLeast: 1)
            guard n <= 1_000_000 else { throw field.error("must be 1 to 1000000") }
            return n
        } ?? 512)
        if let temperature = try root.member("temperature")?.number(in: 0...10) { generation.temperature = temperature }
        if let seed = try root.member("seed")?.integer(atLeast: 0) {
            guard seed <= 4_294_967_294 else { throw .invalidRequest("`seed` must be 0 to 4294967294", param: "seed") }
            generation.seed = UInt32(seed)
        }
        if let field = root.member("think") {
            let word = try field.string()
            guard let setting = ReasoningSetting(name: word) else { throw field.error("must be auto, on, off, low, medium or high") }
            generation.reasoning = setting
        }
    }

    private static func messages(_ field: RequestField) throws(APIError) -> [Message] {
        var messages: [Message] = []
        for item in try field.array() {
            do { messages.append(try Message(templateValue: try item.object().value)) } catch let error as LooplError {
                throw item.error("is not a message: \(error.message)")
            } catch {
                throw item.error("is not a message")
            }
        }
        return messages
    }

    private static func names(_ field: RequestField?) throws(APIError) -> [String] {
        guard let field else { return [] }
        var names: [String] = []
        for item in try field.array() { names.append(try item.string()) }
        return names
    }
}
