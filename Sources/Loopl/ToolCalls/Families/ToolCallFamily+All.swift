extension ToolCallFamily {
    /// Every family, in the order ``ToolCallFormat/allCases`` and ``ToolCallGrammar/families`` list them.
    static let all: [ToolCallFamily] = [
        .hermes, .qwen3Coder, .glm45, .llama3, .pythonic, .mistral, .functionaryV31, .functionaryV32, .fireFunction, .phi4,
        .granite, .deepSeekR1, .deepSeekV3, .deepSeekV31, .deepSeekV32, .commandR7B, .commandRPlus, .gptOSS, .kimiK2, .kimiK3,
        .minimaxM2, .minimaxM1, .muse, .minimaxM3, .jamba, .apriel, .lfm2, .gemma4, .functionGemma, .seedOSS, .apertus,
        .nemotron, .internLM, .generic, .gigaChat, .solarOpen, .miniCPM5, .hunyuan3, .olmo3, .step3, .longCat, .granite20BFC,
    ]

    /// The families with template signs, in the order a chat template is tested against them:
    /// a family comes before those whose signs its templates also contain (Qwen3-Coder before
    /// Hermes, both writing `<tool_call>`).
    static let byTemplatePrecedence: [ToolCallFamily] = [
        .deepSeekV32, .step3, .longCat, .olmo3, .granite20BFC, .muse, .minimaxM3, .kimiK3, .hunyuan3, .solarOpen, .gigaChat, .miniCPM5, .deepSeekV31, .deepSeekR1,
        .gptOSS, .minimaxM2, .seedOSS, .kimiK2, .glm45, .qwen3Coder, .commandR7B, .mistral, .lfm2, .gemma4, .functionGemma,
        .apertus, .nemotron, .internLM, .fireFunction, .granite, .functionaryV32, .functionaryV31, .apriel, .hermes,
        .pythonic, .llama3, .commandRPlus,
    ]
}
