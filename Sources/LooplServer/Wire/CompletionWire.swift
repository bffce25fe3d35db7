import Loopl

/// llama-server's `/completion`, on a prompt Loopl rendered: the text comes as `content`, and
/// the last chunk says `stop` with the counts.
package struct CompletionWire: ServerWire {
    package let prompt: RenderedPrompt
    /// The markup lifted from the text; nil for a raw prompt, whose text is passed on as it is.
    package let format: ToolCallFormat?
    package let opened: ReasoningMarkup?
    package let options: GenerationOptions

    package init(prompt: RenderedPrompt, format: ToolCallFormat?, opened: ReasoningMarkup?, options: GenerationOptions) {
        self.prompt = prompt
        self.format = format
        self.opened = opened
        self.options = options
    }

    package var path: String { "/completion" }
    package var markup: ToolCallFormat? { format }
    package var promptCharacters: Int { prompt.text.count }
    package func expectsTimings(llamaCpp: Bool) -> Bool { true }

    package func body(llamaCpp: Bool) -> JSONValue {
        ServerRequest.completion(prompt, openedReasoning: opened != nil, options: options)
    }

    package func read(_ chunk: JSONValue, into assembler: inout TurnAssembler, events: LiftingContinuation) -> Bool {
        if let event = assembler.text(chunk["content"]?.stringValue ?? "") { events.yield(event) }
        guard chunk["stop"]?.boolValue == true else {
            assembler.record(timings: chunk["timings"], usage: chunk["usage"])
            return false
        }
        assembler.ending = Self.finish(stopType: chunk["stop_type"]?.stringValue)
        assembler.record(timings: chunk["timings"], usage: Self.usage(completion: chunk))
        return true
    }

    private static func finish(stopType: String?) -> TurnAssembler.Finish {
        switch stopType {
        case "word": .stopString
        case "limit": .length
        default: .endOfGeneration
        }
    }

    /// OpenAI-style usage from a `/completion` final chunk.
    private static func usage(completion chunk: JSONValue) -> JSONValue? {
        guard let predicted = chunk["tokens_predicted"]?.intValue, let evaluated = chunk["tokens_evaluated"]?.intValue else { return nil }
        return ["prompt_tokens": .integer(evaluated), "completion_tokens": .integer(predicted),
                "prompt_tokens_details": ["cached_tokens": .integer(chunk["tokens_cached"]?.intValue ?? 0)]]
    }
}
