import Loopl

/// The response object of the Responses API: `{id: "resp_…", object: "response", created_at,
/// status, incomplete_details, model, output, usage, error, ...}` and the request's settings.
///
/// `status` is `in_progress` before the turn ended (no usage yet), `incomplete` with
/// `incomplete_details.reason: "max_output_tokens"` when the token limit cut it, `failed` with
/// an `error`, else `completed`.
package struct ResponsesAnswer: Sendable {
    /// The response's id, `resp_` and letters and digits.
    package let id: String
    /// When the response was created, in Unix seconds.
    package let createdAt: Int
    /// The model name the response reports.
    package let model: String
    /// The request's settings that the object repeats (see ``ResponsesRequest/echo``).
    package let echo: JSONObject

    /// A fresh answer; `id` and `createdAt` are fresh unless given (tests fix them).
    package init(id: String = OpenAIFields.makeId(prefix: "resp_"), model: String, echo: JSONObject,
                 createdAt: Int = OpenAIFields.now()) {
        self.id = id
        self.model = model
        self.echo = echo
        self.createdAt = createdAt
    }

    /// The object while the turn runs: `in_progress`, no output and no usage.
    package var inProgress: JSONValue {
        .object(object(status: "in_progress", output: [], usage: .null))
    }

    /// The object of the finished `output`: `completed`, or `incomplete` when the token limit cut it.
    package func finished(_ output: ResponsesOutput) -> JSONValue {
        let cut = output.isCut && output.toolCalls.isEmpty
        var object = object(status: cut ? "incomplete" : "completed", output: output.json, usage: Self.usage(output.metrics))
        if cut { object["incomplete_details"] = ["reason": "max_output_tokens"] }
        object["completed_at"] = cut ? .null : .integer(OpenAIFields.now())
        return .object(object)
    }

    /// The object of a turn that failed with `error` after its stream began.
    package func failed(_ error: APIError, _ output: ResponsesOutput) -> JSONValue {
        var object = object(status: "failed", output: output.json, usage: Self.usage(output.metrics))
        object["error"] = ["code": .string(error.status == 429 ? "rate_limit_exceeded" : "server_error"),
                           "message": .string(error.message)]
        return .object(object)
    }

    private func object(status: String, output: JSONValue, usage: JSONValue) -> JSONObject {
        var object: JSONObject = [
            "id": .string(id), "object": "response", "created_at": .integer(createdAt), "status": .string(status),
            "error": .null, "incomplete_details": .null, "model": .string(model), "output": output, "usage": usage,
        ]
        for (key, value) in echo { object[key] = value }
        return object
    }

    /// The `usage` object: `input_tokens`, `output_tokens`, `total_tokens`,
    /// `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`; zeros
    /// when no metrics came.
    package static func usage(_ metrics: Metrics?) -> JSONValue {
        let metrics = metrics ?? Metrics()
        return ["input_tokens": .integer(metrics.promptTokens), "output_tokens": .integer(metrics.generatedTokens),
                "total_tokens": .integer(metrics.promptTokens + metrics.generatedTokens),
                "input_tokens_details": ["cached_tokens": .integer(metrics.cachedPromptTokens)],
                "output_tokens_details": ["reasoning_tokens": .integer(metrics.reasoningTokens)]]
    }

    /// The answer to `DELETE /v1/responses/{id}`.
    package static func deleted(_ id: String) -> JSONValue {
        ["id": .string(id), "object": "response", "deleted": true]
    }
}
