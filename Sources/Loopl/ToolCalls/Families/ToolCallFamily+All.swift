extension ToolCallFamily {
    /// Every family, in the order a chat template is tested against them: families whose
    /// template signs are more specific come before those whose signs they contain (Qwen3-Coder
    /// before Hermes, both writing `<tool_call>`). ``ToolCallFormat/allCases`` lists them so.
    static let all: [ToolCallFamily] = [
        .deepSeekV32, .muse, .minimaxM3, .kimiK3, .hunyuan3, .solarOpen, .gigaChat, .miniCPM5,
        .deepSeekV31, .deepSeekR1, .deepSeekV3, .gptOSS, .minimaxM2, .minimaxM1, .seedOSS, .kimiK2, .glm45, .qwen3Coder,
        .commandR7B, .mistral, .lfm2, .gemma4, .functionGemma, .apertus, .nemotron, .internLM,
        .fireFunction, .phi4, .granite, .functionaryV32, .functionaryV31, .apriel, .jamba, .hermes,
        .pythonic, .llama3, .commandRPlus, .generic,
    ]
}
