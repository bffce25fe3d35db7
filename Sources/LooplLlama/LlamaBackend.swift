import CLlama
import Loopl
import Synchronization

/// Process-wide set-up of llama.cpp: initialised once, its log silent unless asked for.
public enum LlamaBackend {
    /// Receives llama.cpp's log lines when set; nil (the default) keeps llama.cpp silent.
    public static var logHandler: (@Sendable (String) -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)
    private static let initialised = Mutex(false)

    /// Initialises llama.cpp once per process and routes its log.
    static func ensureInitialised() {
        initialised.withLock { done in
            guard !done else { return }
            done = true
            llama_log_set({ _, text, _ in
                guard let text, let handler = LlamaBackend.logHandler else { return }
                handler(String(cString: text))
            }, nil)
            llama_backend_init()
        }
    }
}
