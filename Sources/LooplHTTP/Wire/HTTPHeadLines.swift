/// The lines of one head, checked: the first line by the parser's kind, then the header fields.
enum HTTPHeadLines {
    /// Reads a head, from its first line through the empty line that ends it.
    static func parse(_ bytes: ArraySlice<UInt8>, kind: HTTPHeadParser.Kind, limits: HTTPLimits) -> Result<HTTPHead, HTTPParseError> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(bad("The \(kind == .request ? "request" : "status") line or headers are not valid UTF-8."))
        }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let noun = kind == .request ? "request" : "response"
        guard let first = lines.first else { return .failure(bad("The \(noun) has no \(kind == .request ? "request" : "status") line.")) }
        if lines.contains(where: { $0.contains(0x0D) }) {
            return .failure(bad("A line of the \(noun) head holds a bare carriage return; end lines with CRLF."))
        }
        if lines.count - 1 > limits.maxHeaderCount {
            return .failure(HTTPParseError(status: 431, "The \(noun) has \(lines.count - 1) header fields; the limit is \(limits.maxHeaderCount)."))
        }
        let line = kind == .request ? requestLine(first) : statusLine(first)
        return line.flatMap { line in headers(lines.dropFirst()).map { HTTPHead(line: line, headers: $0) } }
    }

    /// The method, target and version of "METHOD target HTTP/1.1".
    static func requestLine(_ line: Substring.UTF8View) -> Result<HTTPHead.Line, HTTPParseError> {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(bad("The request line is not 'METHOD /path HTTP/1.1'."))
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            return .failure(bad("The request method \(quoted(method)) is not a valid method name."))
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(bad("The request target \(quoted(target)) holds spaces, control or non-ASCII bytes; percent-encode them."))
        }
        let targetText = String(decoding: target, as: UTF8.self)
        let lowered = targetText.lowercased()
        guard targetText.hasPrefix("/") || targetText == "*" || lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            return .failure(bad("The request target \(quoted(target)) is not a path starting with '/'."))
        }
        return self.version(version, of: "request line").map {
            .request(method: HTTPMethod(String(decoding: method, as: UTF8.self)), target: targetText, version: $0)
        }
    }

    /// The version, code and reason of "HTTP/1.1 200 OK" (the reason may be empty or missing).
    static func statusLine(_ line: Substring.UTF8View) -> Result<HTTPHead.Line, HTTPParseError> {
        let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].starts(with: "HTTP/".utf8) else {
            return .failure(bad("The answer does not start with an HTTP/1.x status line."))
        }
        let code = parts[1]
        guard code.count == 3, code.allSatisfy(isDigit), let number = Int(String(decoding: code, as: UTF8.self)),
              (100...599).contains(number) else {
            return .failure(bad("The status code \(quoted(code)) is not a number from 100 to 599."))
        }
        let reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
        return version(parts[0], of: "status line").map { .status(version: $0, code: number, reason: reason) }
    }

    /// HTTP/1.0 or HTTP/1.1; a 505 for another version, a 400 for what is no version.
    static func version(_ text: Substring.UTF8View, of line: String) -> Result<HTTPVersion, HTTPParseError> {
        let versionText = String(decoding: text, as: UTF8.self)
        if let version = HTTPVersion(rawValue: versionText) { return .success(version) }
        let digits = Array(text.dropFirst(5))
        if versionText.hasPrefix("HTTP/"), digits.count == 3, isDigit(digits[0]), digits[1] == 0x2E, isDigit(digits[2]) {
            return .failure(HTTPParseError(status: 505, "HTTP version \(versionText.dropFirst(5)) is not supported; use HTTP/1.1."))
        }
        let place = line == "request line" ? "ends in" : "starts with"
        return .failure(bad("The \(line) \(place) \(quoted(text)), not a version like 'HTTP/1.1'."))
    }


    /// The header fields of the lines after the first line.
    static func headers(_ lines: ArraySlice<Substring.UTF8View>) -> Result<HTTPHeaders, HTTPParseError> {
        var headers = HTTPHeaders()
        for line in lines {
            if line.first == 0x20 || line.first == 0x09 {
                return .failure(bad("A header line starts with whitespace (obsolete line folding); put each field on one line."))
            }
            guard let colon = line.firstIndex(of: 0x3A) else {
                return .failure(bad("The header line \(quoted(line)) has no ':'."))
            }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                return .failure(bad("The header name \(quoted(name)) is empty or holds characters a field name cannot have."))
            }
            let value = Substring(line[line.index(after: colon)...]).trimmingSpaces
            guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .failure(bad("The value of header \(quoted(name)) holds control characters."))
            }
            headers.append(name: String(decoding: name, as: UTF8.self), value: String(value))
        }
        return .success(headers)
    }

    /// A 400 with `message`.
    static func bad(_ message: String) -> HTTPParseError { HTTPParseError(status: 400, message) }

    /// Up to 40 bytes of `bytes`, quoted, for a message.
    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return "'" + text + (bytes.count > 40 ? "…'" : "'")
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Whether `byte` may be part of a method or a header name (RFC 9110 `tchar`).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
