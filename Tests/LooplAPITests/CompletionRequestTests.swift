@testable import LooplAPI
import Loopl
import Testing

@Suite struct CompletionRequestTests {
    static func read(_ text: String) throws(APIError) -> CompletionRequest {
        try CompletionRequest(body: Array(text.utf8))
    }

    @Test func aPromptIsAStringOrAListOfOneString() throws {
        let plain = try Self.read(#"{"model":"m","prompt":"Once","max_tokens":5,"temperature":0,"stop":"\n","seed":3}"#)
        #expect(plain.prompt == "Once" && plain.model == "m")
        #expect(plain.options.maxTokens == 5 && plain.options.temperature == 0 && plain.options.stop == ["\n"] && plain.options.seed == 3)
        #expect(try Self.read(#"{"prompt":["Once"],"echo":false,"logprobs":null,"n":1}"#).prompt == "Once")
        #expect(try Self.read(#"{"prompt":"x"}"#).options.maxTokens == CompletionRequest.defaultMaxTokens)
        let streamed = try Self.read(#"{"prompt":"x","stream":true,"stream_options":{"include_usage":true}}"#)
        #expect(streamed.stream && streamed.includeUsage)
    }

    @Test(arguments: [
        (#"{"max_tokens":4}"#, "prompt"),
        (#"{"prompt":["a","b"]}"#, "prompt"),
        (#"{"prompt":[[1,2,3]]}"#, "prompt[0]"),
        (#"{"prompt":42}"#, "prompt"),
        (#"{"prompt":"a","n":2}"#, "n"),
        (#"{"prompt":"a","best_of":3}"#, "best_of"),
        (#"{"prompt":"a","echo":true}"#, "echo"),
        (#"{"prompt":"a","logprobs":2}"#, "logprobs"),
        (#"{"prompt":"a","temperature":9}"#, "temperature"),
    ])
    func unservedFieldsAre400sNamingTheField(_ text: String, _ param: String) {
        let error = #expect(throws: APIError.self) { try Self.read(text) }
        #expect(error?.status == 400 && error?.param == param, "\(String(describing: error))")
    }

    @Test func aStreamEndsWithTheFinishReasonThenTheUsage() {
        var answer = CompletionAnswer(model: "m", id: "cmpl-1", created: 7)
        let chunk = answer.add(.text("Hi"), includeUsage: true)
        #expect(chunk?["choices"]?.arrayValue?.first?["text"]?.stringValue == "Hi")
        #expect(chunk?["usage"] == .null)
        _ = answer.add(.metrics(Metrics(promptTokens: 3, generatedTokens: 4, finished: true, stopReason: .maxTokens)))
        let last = answer.finish(includeUsage: true)
        #expect(last.count == 2)
        #expect(last[0]["choices"]?.arrayValue?.first?["finish_reason"]?.stringValue == "length")
        #expect(last[1]["choices"]?.arrayValue?.isEmpty == true)
        #expect(last[1]["usage"]?["total_tokens"]?.intValue == 7)
        #expect(answer.json["choices"]?.arrayValue?.first?["text"]?.stringValue == "Hi")
        #expect(answer.json["object"]?.stringValue == "text_completion")
    }
}
