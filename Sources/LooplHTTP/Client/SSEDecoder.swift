/// Splits a Server-Sent Events byte stream into the `data` of each event.
///
/// Lines end in LF or CRLF; a blank line ends an event; several `data:` lines of one event are
/// joined with newlines; `event:` names the event; comment lines (`:` keep-alives) and other
/// fields are skipped.
package struct SSEDecoder: Sendable {
    /// One event: its `event` name ("message" when it has none) and its `data`.
    package struct Event: Sendable, Hashable {
        package var name: String
        package var data: String
    }

    private var line: [UInt8] = []
    private var data: [String] = []
    private var name: String?
    private var dataBytes = 0

    /// The longest line, and the most data one event may carry: 16 MiB.
    package static let limit = 16 * 1024 * 1024

    /// What went wrong once a line or an event grew past ``limit``; the decoder then takes nothing more.
    package private(set) var violation: String?

    package init() {}

    /// Takes the next bytes and returns the events they complete, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        events(bytes).map(\.data)
    }

    /// Takes the next bytes and returns the events they complete, with their names.
    package mutating func events(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes where violation == nil {
            if byte == 0x0A {
                if let event = endLine() { events.append(event) }
            } else if line.count < Self.limit {
                line.append(byte)
            } else {
                violation = "it sent a Server-Sent Events line longer than \(Self.limit / 1024 / 1024) MiB"
                line = []
                data = []
                name = nil
            }
        }
        return events
    }

    /// The event left when the stream ends without its blank line, if any.
    package mutating func finish() -> String? {
        finishEvent()?.data
    }

    /// The event left when the stream ends without its blank line, with its name.
    package mutating func finishEvent() -> Event? {
        if !line.isEmpty { _ = endLine() }
        defer { data.removeAll(); name = nil }
        return data.isEmpty ? nil : Event(name: name ?? "message", data: data.joined(separator: "\n"))
    }

    /// Ends the current line; returns the event that a blank line completes.
    private mutating func endLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.last == 0x0D { line.removeLast() }
        if line.isEmpty {
            defer { data.removeAll(); dataBytes = 0; name = nil }
            return data.isEmpty ? nil : Event(name: name ?? "message", data: data.joined(separator: "\n"))
        }
        if line.starts(with: Self.eventField) {
            var value = line.dropFirst(Self.eventField.count)
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            name = String(decoding: value, as: UTF8.self)
            return nil
        }
        if line.starts(with: Self.dataField) {
            var value = line.dropFirst(Self.dataField.count)
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            dataBytes += value.count + 1
            guard dataBytes <= Self.limit else {
                violation = "it sent a Server-Sent Event with more than \(Self.limit / 1024 / 1024) MiB of data"
                data = []
                return nil
            }
            data.append(String(decoding: value, as: UTF8.self))
        }
        return nil
    }

    private static let dataField = Array("data:".utf8)
    private static let eventField = Array("event:".utf8)
}
