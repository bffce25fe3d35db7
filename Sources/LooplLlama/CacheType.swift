import CLlama

/// The type of the KV cache's keys (llama-server's `--cache-type-k`): config key `cacheTypeK`.
///
/// With `f16` keys, llama.cpp computes one token's attention split over the cache between its
/// threads, and several tokens' attention row by row, so a token's logits differ in their last
/// digits with the number of tokens in its step; `q8_0` keys take the row-by-row way for both,
/// and a token's logits are the same bit for bit. Drafting needs that, for a verify step to
/// choose the very tokens one-token steps choose.
public enum CacheType: String, Sendable, Hashable, CaseIterable {
    case f16
    case q8_0

    var ggmlType: ggml_type {
        switch self {
        case .f16: GGML_TYPE_F16
        case .q8_0: GGML_TYPE_Q8_0
        }
    }
}
