import Foundation

/// A prompt-cache folder for one test's child process, command or config: a new folder inside
/// the run's (`LOOPL_PROMPT_CACHE_DIR`, which `scripts/test` sets and removes at the end), else
/// inside the temporary folder. The prompt cache is on in tests, as by default; this keeps one
/// test's saved prompts from another's.
package func freshPromptCacheFolder() -> String {
    let base = ProcessInfo.processInfo.environment["LOOPL_PROMPT_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("loopl-prompt-cache").path
    return base + "/test-" + UUID().uuidString
}

/// This process's environment with a ``freshPromptCacheFolder()`` as `LOOPL_PROMPT_CACHE_DIR`, for a child.
package func environmentWithFreshPromptCache() -> [String: String] {
    ProcessInfo.processInfo.environment.merging(["LOOPL_PROMPT_CACHE_DIR": freshPromptCacheFolder()]) { $1 }
}
