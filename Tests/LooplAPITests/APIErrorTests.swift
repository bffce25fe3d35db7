@testable import LooplAPI
import Loopl
import Testing

@Suite struct APIErrorTests {
    @Test func theBodyIsOpenAIsErrorObject() throws {
        let error = APIError.invalidRequest("`n` is 2.", param: "n")
        #expect(try JSONValue(parsing: error.body) ==
                ["error": ["message": "`n` is 2.", "type": "invalid_request_error", "code": "invalid_request", "param": "n"]])
        #expect(try JSONValue(parsing: APIError.unauthorized.body)["error"]?["param"] == .null)
        #expect(String(decoding: APIError.unauthorized.body, as: UTF8.self).contains(#""param":null"#))
    }

    @Test func theConstructorsHaveTheirStatusesAndCodes() {
        let cases: [(APIError, Int, String, String)] = [
            (.invalidRequest("x", param: nil), 400, "invalid_request_error", "invalid_request"),
            (.invalidJSON("x"), 400, "invalid_request_error", "invalid_json"),
            (.unauthorized, 401, "authentication_error", "invalid_api_key"),
            (.modelNotFound("gpt-4", available: ["qwen", "gemma"]), 404, "invalid_request_error", "model_not_found"),
            (.notFound("/v2/x"), 404, "invalid_request_error", "unknown_url"),
            (.methodNotAllowed("GET", allowed: ["POST"]), 405, "invalid_request_error", "method_not_allowed"),
            (.tooLarge(limit: 1024), 413, "invalid_request_error", "request_too_large"),
            (.busy(retryAfter: 3), 429, "rate_limit_error", "busy"),
            (.unavailable("down"), 503, "server_error", "model_unavailable"),
            (.internalError("oops"), 500, "server_error", "internal_error"),
        ]
        for (error, status, type, code) in cases {
            #expect(error.status == status && error.type == type && error.code == code, "\(error)")
        }
    }

    @Test func messagesTellTheClientWhatToDo() {
        #expect(APIError.unauthorized.message.contains("Authorization: Bearer KEY"))
        #expect(APIError.unauthorized.message.contains("x-api-key"))
        #expect(APIError.modelNotFound("gpt-4", available: ["qwen", "gemma"]).message.contains("'gpt-4'"))
        #expect(APIError.modelNotFound("gpt-4", available: ["qwen", "gemma"]).message.contains("qwen, gemma"))
        #expect(APIError.modelNotFound("gpt-4", available: ["qwen"]).param == "model")
        #expect(APIError.tooLarge(limit: 1024).message.contains("1024 bytes"))
        #expect(APIError.notFound("/v2/x").message.contains("/v2/x"))
    }

    @Test func headersCarryRetryAfterAndAllow() {
        #expect(APIError.busy(retryAfter: 3).headers.map { "\($0.0): \($0.1)" } == ["Retry-After: 3"])
        #expect(APIError.methodNotAllowed("GET", allowed: ["POST"]).headers.map { "\($0.0): \($0.1)" } == ["Allow: POST"])
        #expect(APIError.invalidJSON("x").headers.isEmpty)
    }

    @Test func theStreamEventIsOneSSEDataEvent() throws {
        let event = APIError.internalError("broke").streamEvent
        let text = String(decoding: event, as: UTF8.self)
        #expect(text.hasPrefix("data: {\"error\":{"))
        #expect(text.hasSuffix("}}\n\n"))
        #expect(try JSONValue(parsing: text.dropFirst(6).dropLast(2).utf8)["error"]?["message"] == "broke")
    }

    @Test(arguments: [
        (LooplError.Code.contextOverflow, 400, "context_length_exceeded"),
        (.invalidRequest, 400, "invalid_request"),
        (.invalidJSON, 400, "invalid_json"),
        (.templateError, 400, "template_error"),
        (.busy, 429, "busy"),
        (.agentBusy, 429, "busy"),
        (.processFailed, 503, "model_unavailable"),
        (.connectionFailed, 503, "model_unavailable"),
        (.timedOut, 503, "model_unavailable"),
        (.modelNotFound, 503, "model_unavailable"),
        (.invalidModel, 503, "model_unavailable"),
        (.invalidConfiguration, 503, "model_unavailable"),
        (.closed, 503, "model_unavailable"),
        (.cancelled, 500, "cancelled"),
        (.generationFailed, 500, "generation_failed"),
        (.protocolViolation, 500, "protocol_violation"),
        (.httpError, 500, "http_error"),
        (.io, 500, "io"),
    ])
    func looplErrorsMapKeepingTheirMessage(code: LooplError.Code, status: Int, apiCode: String) {
        let message = "The prompt has 5000 tokens; the context holds 4096."
        let error = APIError(LooplError(code, message))
        #expect(error.status == status)
        #expect(error.code == apiCode)
        #expect(error.message == message)
        #expect(error.type == (status == 400 ? "invalid_request_error" : status == 429 ? "rate_limit_error" : "server_error"))
        #expect((error.retryAfter != nil) == (status == 429))
    }
}

@Suite struct ModelObjectAndSSETests {
    @Test func modelsListHasOpenAIsShape() {
        let list = ModelObject.list([ModelObject(id: "qwen", created: 5), ModelObject(id: "gemma", created: 6)])
        #expect(list == ["object": "list", "data": [
            ["id": "qwen", "object": "model", "created": 5, "owned_by": "loopl"],
            ["id": "gemma", "object": "model", "created": 6, "owned_by": "loopl"],
        ]])
        #expect(ModelObject.list([]) == ["object": "list", "data": []])
    }

    @Test func sseFramesAreDataLinesAndBlankLines() {
        #expect(String(decoding: SSE.data(["a": 1, "b": "x y"]), as: UTF8.self) == "data: {\"a\":1,\"b\":\"x y\"}\n\n")
        #expect(String(decoding: SSE.data(["t": "line\nbreak"]), as: UTF8.self) == "data: {\"t\":\"line\\nbreak\"}\n\n")
        #expect(String(decoding: SSE.done, as: UTF8.self) == "data: [DONE]\n\n")
        #expect(String(decoding: SSE.ping, as: UTF8.self) == ": ping\n\n")
    }
}
