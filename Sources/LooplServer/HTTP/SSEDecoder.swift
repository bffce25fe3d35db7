/// Splits a Server-Sent Events byte stream into the `data` of each event.
///
/// Lines end in LF or CRLF; a blank line ends an event; several `data:` lines of one event are
/// joined with newlines; comment lines (`:` keep-alives) and other fields are skipped.
package struct SSEDecoder: Sendable {
    private var line: [UInt8] = []
    private var data: [String] = []

    package init() {}

    /// Takes the next bytes and returns the events they complete, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        var events: [String] = []
        for byte in bytes {
            if byte == 0x0A {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// The event left when the stream ends without its blank line, if any.
    package mutating func finish() -> String? {
        if !line.isEmpty { _ = endLine() }
        defer { data.removeAll() }
        return data.isEmpty ? nil : data.joined(separator: "\n")
    }

    /// Ends the current line; returns the event that a blank line completes.
    private mutating func endLine() -> String? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.last == 0x0D { line.removeLast() }
        if line.isEmpty {
            defer { data.removeAll() }
            return data.isEmpty ? nil : data.joined(separator: "\n")
        }
        if line.starts(with: Self.dataField) {
            var value = line.dropFirst(Self.dataField.count)
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            data.append(String(decoding: value, as: UTF8.self))
        }
        return nil
    }

    private static let dataField = Array("data:".utf8)
}
