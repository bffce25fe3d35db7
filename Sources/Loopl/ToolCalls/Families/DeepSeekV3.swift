extension ToolCallFormat {
    /// DeepSeek V3: as R1.
    public static let deepSeekV3 = ToolCallFormat(rawValue: "deepseek-v3")
}

extension ToolCallFamily {
    static let deepSeekV3 = ToolCallFamily(
        format: .deepSeekV3, markers: deepSeekR1.markers, grammar: deepSeekR1.grammar)
}
