@testable import LooplAPI
import Loopl
import Testing

/// Reading a raw streamed body back into chunks, as an integration test of a real server does.
@Suite struct ChatStreamSSETests {
    func body(_ chunks: [JSONValue], done: Bool = true) -> [UInt8] {
        SSE.ping + chunks.flatMap { SSE.data($0) + SSE.ping } + (done ? SSE.done : [])
    }

    @Test func anEncodedStreamReadsBackWhole() {
        let chunks = stream(turnWithCalls, includeUsage: true)
        let parsed = ChatStreamInvariants.chunks(fromSSE: body(chunks))
        #expect(parsed.problems == [])
        #expect(parsed.chunks == chunks)
        #expect(ChatStreamInvariants.violations(inSSE: body(chunks)) == [])
    }

    @Test func crlfLineEndsAreRead() {
        let chunks = stream([.text("a\r\nb")], includeUsage: false)
        let text = String(decoding: body(chunks), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\r\n")
        let parsed = ChatStreamInvariants.chunks(fromSSE: Array(text.utf8))
        #expect(parsed.problems == [])
        #expect(parsed.chunks == chunks)
    }

    @Test func framingProblemsAreReported() {
        let chunks = stream([.text("a")], includeUsage: false)
        #expect(ChatStreamInvariants.violations(inSSE: body(chunks, done: false)) == ["the stream does not end with data: [DONE]"])
        let late = body(chunks) + SSE.data(chunks[0])
        #expect(ChatStreamInvariants.violations(inSSE: late).contains { $0.contains("after [DONE]") })
        let garbled = SSE.data(chunks[0]) + Array("data: {oops\n\n".utf8) + SSE.data(chunks[1]) + SSE.done
        #expect(ChatStreamInvariants.violations(inSSE: garbled).contains { $0.contains("is not JSON: {oops") })
        let failed = SSE.data(chunks[0]) + APIError.internalError("engine stopped").streamEvent + SSE.done
        let found = ChatStreamInvariants.violations(inSSE: failed)
        #expect(found.contains { $0.contains("is an error") && $0.contains("engine stopped") })
        #expect(found.contains { $0.contains("no chunk has a non-null `finish_reason`") })
    }
}
