import Loopl

extension RequestField {
    /// The field as a request's `keep_alive`: seconds as a number, or a duration such as `"5m"`
    /// or `"1h30m"` (0: unload after this answer; negative: never); a 400 for anything else.
    package func keepAlive() throws(APIError) -> KeepAlive {
        guard let keepAlive = KeepAlive(config: value) else {
            throw error("is \(value.jsonText()), not a duration: send seconds as a number, or a duration such as \"5m\" or \"1h30m\".")
        }
        return keepAlive
    }

    /// The body's `keep_alive`, which every dialect takes; nil when absent.
    package func keepAliveMember() throws(APIError) -> KeepAlive? {
        try member("keep_alive")?.keepAlive()
    }
}
