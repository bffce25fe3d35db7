import Loopl

/// A served model as an agent run's engine: each turn is one request under the backend's limit,
/// counted in the metrics like a chat completion, with the same retry of an engine lost before
/// its first token. The directory owns the engine, so closing this leaves it running.
struct ServedEngine: Model {
    let served: ServedModel

    var contextSize: Int { get async throws { try await served.model.contextSize } }

    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error> {
        let served = served
        return ModelEventPipe.stream { pipe in
            try await served.run({ $0.generate(messages: messages, tools: tools, options: options) }) { event in
                await pipe.waitForRoom()
                pipe.yield(event)
                return true
            }
        }
    }

    func close() async {}
}
