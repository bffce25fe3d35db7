import Foundation

extension URL {
    /// The URL as shown in messages and logs: a password and every query value replaced by `***`
    /// (`http://user:***@host/v1?token=***`), so that no secret it carries is printed.
    package var redacted: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems {
            components.queryItems = items.map { URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "***") }
        }
        components.fragment = nil
        return (components.string ?? "(a URL)").replacingOccurrences(of: "%2A%2A%2A", with: "***")
    }
}

extension URL {
    /// `text` as shown in messages: ``redacted`` when it is a URL; otherwise with whatever sits
    /// between `://` and `@`, and everything from `?` on, replaced by `***`.
    package static func redacting(_ text: String) -> String {
        if let url = URL(string: text), url.host != nil { return url.redacted }
        var shown = text
        if let query = shown.firstIndex(of: "?") { shown = shown[..<query] + "?***" }
        if let scheme = shown.range(of: "://"), let at = shown[scheme.upperBound...].lastIndex(of: "@") {
            shown.replaceSubrange(scheme.upperBound..<at, with: "***")
        }
        return shown
    }
}
