@testable import LooplAPI
import Loopl

/// Reads `text` as a request body.
func request(_ text: String) throws(APIError) -> ChatRequest {
    try ChatRequest(body: Array(text.utf8))
}

/// The error a body is refused with; nil when it is accepted.
func rejection(_ text: String) -> APIError? {
    rejection(bytes: Array(text.utf8))
}

/// The error a body of raw bytes is refused with; nil when it is accepted.
func rejection(bytes: [UInt8]) -> APIError? {
    do {
        _ = try ChatRequest(body: bytes)
        return nil
    } catch {
        return error
    }
}

/// A request body with one user message and `extra` top-level members (JSON text without braces).
func body(_ extra: String = "") -> String {
    let messages = #""messages":[{"role":"user","content":"hi"}]"#
    return extra.isEmpty ? "{\(messages)}" : "{\(messages),\(extra)}"
}
