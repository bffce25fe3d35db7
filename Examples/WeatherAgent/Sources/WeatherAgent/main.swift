import Loopl
import LooplLlama

let weather = FunctionTool(
    name: "get_weather", description: "Gets the current weather in a city.",
    parameters: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]]
) { arguments in
    "Sunny, 21 °C in \(arguments["city"]?.stringValue ?? "that city")."
}

let model = try await LlamaModel.start()  // the default model, in this process
let agent = Agent(model: model, tools: [weather],
                  options: AgentOptions(maxIterations: 2, firstToolChoice: .required, generation: .greedy(maxTokens: 96)))
for try await event in agent.stream("What is the weather in Paris?") {
    switch event {
    case .toolStarted(let call): print("tool call: \(call.name) \(JSONValue.object(call.arguments).jsonText())")
    case .toolFinished(let result): print("tool result: \(result.content)")
    case .assistantMessage(let message) where message.toolCalls.isEmpty: print("answer: \(message.text)")
    default: break
    }
}
await model.close()
