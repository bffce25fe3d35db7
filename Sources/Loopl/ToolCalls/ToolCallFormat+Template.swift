extension ToolCallFormat {
    /// The family a chat template writes calls in, from the markers in its source; `.auto` when
    /// no family's markers appear.
    public init(inferringFromTemplate source: String) {
        func has(_ marker: String) -> Bool { source.contains(marker) }
        let rules: [(Bool, ToolCallFormat)] = [
            (has("DSML"), .deepSeekV32),
            (has("<atem:"), .muse),
            (has("]<]minimax[>["), .minimaxM3),
            (has("'<|open|>'") && has("'<|sep|>'"), .kimiK3),
            (has(":opensource") && has("<tool_sep"), .hunyuan3),
            (has("<|tool_call:begin|>"), .solarOpen),
            (has("<|function_call|>") || (has("function call") && has("<|role_sep|>")), .gigaChat),
            (has("<param name="), .miniCPM5),
            (has("tool▁call▁begin｜>' + tool['function']['name']") || has("tool▁call▁begin｜>'+ tool['function']['name']"), .deepSeekV31),
            (has("tool▁calls▁begin"), .deepSeekR1),
            (has("<|channel|>"), .gptOSS),
            (has("<minimax:tool_call>"), .minimaxM2),
            (has("<seed:tool_call>"), .seedOSS),
            (has("<|tool_calls_section_begin|>"), .kimiK2),
            (has("<arg_key>"), .glm45),
            (has("<function=") && has("<parameter="), .qwen3Coder),
            (has("<|START_ACTION|>"), .commandR7B),
            (has("[TOOL_CALLS]"), .mistral),
            (has("<|tool_call_start|>"), .lfm2),
            (has("<|tool_call>"), .gemma4),
            (has("<start_function_call>"), .functionGemma),
            (has("<|tools_prefix|>"), .apertus),
            (has("<TOOLCALL>"), .nemotron),
            (has("<|action_start|>"), .internLM),
            (has("functools["), .fireFunction),
            (has("<|tool_call|>"), .granite),
            (has(">>>") && has("all"), .functionaryV32),
            (has("<function="), .functionaryV31),
            (has("<tool_calls>"), .apriel),
            (has("<tool_call>"), .hermes),
            (has("<|python_start|>") || has("func_name1("), .pythonic),
            (has("<|python_tag|>") || (has("<|start_header_id|>") && has("\"parameters\"")), .llama3),
            (has("Action:") && has("tool_name"), .commandRPlus),
        ]
        self = rules.first(where: \.0)?.1 ?? .auto
    }
}
