import CLlama

/// Whether llama.cpp computes attention with its fused kernel (llama-server's `--flash-attn`):
/// config key `flashAttention`, default ``auto`` (llama.cpp's choice: on for the CPU).
///
/// ``off`` evaluates a few tokens deep in a context at over twice the speed on the CPU, and
/// decodes there faster too, which is what a prompt evaluated in chunks beside streaming answers
/// needs (docs/bench.md, "Where a mixed step's time goes"); but a sequence's tokens then depend on
/// which sequences share its step, so greedy text beside others parts from the text alone within
/// a few tokens. The default keeps them the same.
public enum FlashAttention: String, Sendable, Hashable, CaseIterable {
    case auto
    case on
    case off

    var llamaType: llama_flash_attn_type {
        switch self {
        case .on: LLAMA_FLASH_ATTN_TYPE_ENABLED
        case .off: LLAMA_FLASH_ATTN_TYPE_DISABLED
        case .auto: LLAMA_FLASH_ATTN_TYPE_AUTO
        }
    }
}
