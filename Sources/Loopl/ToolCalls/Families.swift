/// Every family's markup, by format name.
enum Families {
    static let commonReasoning: [Marker] = [.reasoning("<think>", "</think>"), .drop("</think>")]

    private static let toolCall = Marker.block("<tool_call>", JSONCallReaders.toolCall)
    private static let bareFunction = Marker.block("<function=", XMLCallReaders.function)
    private static let pythonTag = Marker.block("<|python_tag|>", JSONCallReaders.llamaPythonTag)
    private static let llamaEnds: [Marker] = [.drop("<|eom_id|>"), .drop("<|eot_id|>")]
    private static let mistral = Marker.block("[TOOL_CALLS]", JSONCallReaders.mistral)
    private static let functools = Marker.block("functools", JSONCallReaders.block("functools", nil))
    private static let pipeToolCall = Marker.block("<|tool_call|>", JSONCallReaders.block("<|tool_call|>", "<|/tool_call|>"))
    private static let deepSeek: [Marker] = [
        .block("<｜tool▁calls▁begin｜>", JSONCallReaders.deepSeek),
        .block("<｜tool▁call▁begin｜>", JSONCallReaders.deepSeek),
    ]
    private static let toolCallsTag = Marker.block("<tool_calls>", JSONCallReaders.block("<tool_calls>", "</tool_calls>"))

    static let all: [Family] = [
        Family(format: .hermes, markers: [toolCall, bareFunction], startReaders: [BareCallReaders.json]),
        Family(format: .qwen3Coder, markers: [toolCall, bareFunction]),
        Family(format: .glm45, markers: [toolCall]),
        Family(format: .llama3, markers: [pythonTag] + llamaEnds, startReaders: [BareCallReaders.json, PythonicCalls.bare]),
        Family(format: .pythonic, markers: [.block("<|python_start|>", PythonicCalls.llama4)],
               startReaders: [PythonicCalls.bare]),
        Family(format: .mistral, markers: [mistral], startReaders: [BareCallReaders.json],
               reasoning: [.reasoning("[THINK]", "[/THINK]")], reasoningClose: "[/THINK]"),
        Family(format: .functionaryV31, markers: [bareFunction, pythonTag] + llamaEnds),
        Family(format: .functionaryV32, markers: [.block(">>>", ChannelCallReaders.functionaryRecipient)],
               startReaders: [ChannelCallReaders.functionaryStart]),
        Family(format: .fireFunction, markers: [functools]),
        Family(format: .phi4, markers: [functools, pipeToolCall]),
        Family(format: .granite, markers: [pipeToolCall, toolCall, .drop("<response>"), .drop("</response>")]),
        Family(format: .deepSeekR1, markers: deepSeek),
        Family(format: .deepSeekV3, markers: deepSeek),
        Family(format: .deepSeekV31, markers: deepSeek),
        Family(format: .deepSeekV32, markers: deepSeek + [
            .block("<｜DSML｜function_calls>", XMLCallReaders.invokeBlock(
                prefix: "｜DSML｜", open: "<｜DSML｜function_calls>", close: "</｜DSML｜function_calls>")),
            .block("<｜DSML｜tool_calls>", XMLCallReaders.invokeBlock(
                prefix: "｜DSML｜", open: "<｜DSML｜tool_calls>", close: "</｜DSML｜tool_calls>")),
        ]),
        Family(format: .commandR7B,
               markers: [.block("<|START_ACTION|>", JSONCallReaders.block("<|START_ACTION|>", "<|END_ACTION|>")),
                         .drop("<|START_RESPONSE|>"), .drop("<|END_RESPONSE|>"),
                         .drop("<|START_TEXT|>"), .drop("<|END_TEXT|>")],
               reasoning: [.reasoning("<|START_THINKING|>", "<|END_THINKING|>")], reasoningClose: "<|END_THINKING|>"),
        Family(format: .commandRPlus, markers: [.block("Action:", JSONCallReaders.commandRPlus)]),
        Family(format: .gptOSS,
               markers: [.block("<|channel|>", ChannelCallReaders.harmony), .block("<|start|>", ChannelCallReaders.harmony),
                         .block("to=functions.", ChannelCallReaders.harmony),
                         .drop("<|end|>"), .drop("<|return|>"), .drop("<|call|>")],
               reasoningClose: "<|end|>"),
        Family(format: .kimiK2, markers: [
            .block("<|tool_calls_section_begin|>", JSONCallReaders.kimi),
            .block("<|tool_call_begin|>", JSONCallReaders.kimi),
        ]),
        Family(format: .kimiK3,
               markers: [.block("<|open|>tools<|sep|>", TagTreeCallReaders.kimiK3),
                         .drop("<|close|>think<|sep|>"), .drop("<|open|>response<|sep|>"), .drop("<|close|>response<|sep|>"),
                         .drop("<|close|>message<|sep|>"), .drop("<|end_of_msg|>")],
               reasoning: [.reasoning("<|open|>think<|sep|>", "<|close|>think<|sep|>")], reasoningClose: "<|close|>think<|sep|>"),
        Family(format: .minimaxM2, markers: [
            .block("<minimax:tool_call>", XMLCallReaders.invokeBlock(
                prefix: "", open: "<minimax:tool_call>", close: "</minimax:tool_call>")),
        ]),
        Family(format: .minimaxM1, markers: [toolCallsTag]),
        Family(format: .muse, markers: [
            .block("<atem:function_calls>", XMLCallReaders.invokeBlock(
                prefix: "atem:", open: "<atem:function_calls>", close: "</atem:function_calls>")),
            .block("to=", ChannelCallReaders.museHeader), .drop("<|start|>assistant"), .drop("<|message|>"),
            .drop("<|eom|>"), .drop("<|eot|>"),
        ], inAuto: false),
        Family(format: .minimaxM3,
               markers: [.block("]<]minimax[>[<tool_call>", NestedXMLCallReaders.minimaxM3), .drop("</mm:think>"), .drop("[e~[")],
               reasoning: [.reasoning("<mm:think>", "</mm:think>")], reasoningClose: "</mm:think>"),
        Family(format: .jamba, markers: [toolCallsTag]),
        Family(format: .apriel, markers: [toolCallsTag, .drop("[BEGIN FINAL RESPONSE]"), .drop("[END FINAL RESPONSE]")]),
        Family(format: .lfm2, markers: [.block("<|tool_call_start|>", PythonicCalls.lfm2)]),
        Family(format: .gemma4,
               markers: [.block("<|tool_call>", GemmaCallReaders.block(open: "<|tool_call>", close: "<tool_call|>", quote: "<|\"|>"))],
               reasoning: [.reasoning("<|channel>thought", "<channel|>")], reasoningClose: "<channel|>"),
        Family(format: .functionGemma, markers: [
            .block("<start_function_call>", GemmaCallReaders.block(
                open: "<start_function_call>", close: "<end_function_call>", quote: "<escape>")),
        ]),
        Family(format: .seedOSS,
               markers: [.block("<seed:tool_call>", XMLCallReaders.functionBlock("<seed:tool_call>", "</seed:tool_call>")),
                         .drop("<seed:eos>")],
               reasoning: [.reasoning("<seed:think>", "</seed:think>")], reasoningClose: "</seed:think>"),
        Family(format: .apertus, markers: [.block("<|tools_prefix|>", JSONCallReaders.apertus)],
               reasoning: [.reasoning("<|inner_prefix|>", "<|inner_suffix|>")], reasoningClose: "<|inner_suffix|>"),
        Family(format: .nemotron, markers: [.block("<TOOLCALL>", JSONCallReaders.block("<TOOLCALL>", "</TOOLCALL>")), toolCall]),
        Family(format: .internLM, markers: [
            .block("<|action_start|><|plugin|>", JSONCallReaders.block("<|action_start|><|plugin|>", "<|action_end|>")),
        ]),
        Family(format: .generic, startReaders: [BareCallReaders.json, BareCallReaders.response]),
        Family(format: .gigaChat, markers: [
            .block("<|function_call|>", JSONCallReaders.block("<|function_call|>", nil)),
            .block("function call<|role_sep|>", JSONCallReaders.block("function call<|role_sep|>", nil)),
        ]),
        Family(format: .solarOpen, markers: [
            .block("<|tool_calls|>", JSONCallReaders.solar), .block("<|tool_call:begin|>", JSONCallReaders.solar),
        ]),
        Family(format: .miniCPM5, markers: [.block("<function name=\"", XMLCallReaders.miniCPM)]),
        Family(format: .hunyuan3, markers: [
            .block("<tool_calls:opensource>", XMLCallReaders.hunyuan), .block("<tool_call:opensource>", XMLCallReaders.hunyuan),
        ]),
    ]
}
