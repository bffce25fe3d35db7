/// A request's line and headers, read and checked; its body follows in `length` bytes.
struct HTTPHead: Sendable {
    /// The request, with an empty body.
    var request: HTTPRequest
    /// The body's length (Content-Length; 0 without one).
    var length: Int
    /// Whether the client waits for `100 Continue` before it sends the body.
    var expectsContinue: Bool

    /// Reads a head, from its request line through the empty line that ends it.
    static func parse(_ bytes: ArraySlice<UInt8>, limits: HTTPLimits) -> Result<HTTPHead, HTTPParseError> {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(bad("The request line or headers are not valid UTF-8."))
        }
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { return .failure(bad("The request has no request line.")) }
        if lines.contains(where: { $0.contains(0x0D) }) {
            return .failure(bad("A line of the request head holds a bare carriage return; end lines with CRLF."))
        }
        if lines.count - 1 > limits.maxHeaderCount {
            return .failure(HTTPParseError(status: 431, "The request has \(lines.count - 1) header fields; the limit is \(limits.maxHeaderCount)."))
        }
        return requestLine(first).flatMap { method, target, version in
            headers(lines.dropFirst()).flatMap { headers in
                body(headers, version: version, limits: limits).map { length, expects in
                    HTTPHead(request: HTTPRequest(method: method, target: target, version: version, headers: headers),
                             length: length, expectsContinue: expects)
                }
            }
        }
    }

    /// The method, target and version of "METHOD target HTTP/1.1".
    static func requestLine(_ line: Substring.UTF8View) -> Result<(String, String, String), HTTPParseError> {
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
        let versionText = String(decoding: version, as: UTF8.self)
        if versionText == "HTTP/1.1" || versionText == "HTTP/1.0" { return .success((String(decoding: method, as: UTF8.self), targetText, versionText)) }
        let digits = Array(version.dropFirst(5))
        if versionText.hasPrefix("HTTP/"), digits.count == 3, isDigit(digits[0]), digits[1] == 0x2E, isDigit(digits[2]) {
            return .failure(HTTPParseError(status: 505, "HTTP version \(versionText.dropFirst(5)) is not supported; use HTTP/1.1."))
        }
        return .failure(bad("The request line ends in \(quoted(version)), not a version like 'HTTP/1.1'."))
    }

    /// The header fields of the lines after the request line.
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

    /// The body's length and whether the client expects `100 Continue`.
    static func body(_ headers: HTTPHeaders, version: String, limits: HTTPLimits) -> Result<(Int, Bool), HTTPParseError> {
        if headers.contains("Transfer-Encoding") {
            return .failure(HTTPParseError(status: 411, "Request bodies sent with Transfer-Encoding are not supported; send the body with a Content-Length."))
        }
        var length = 0
        let values = headers.values("Content-Length").flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        for (index, raw) in values.enumerated() {
            let value = raw.trimmingSpaces
            guard !value.isEmpty, value.utf8.allSatisfy(isDigit) else {
                return .failure(bad("The Content-Length \(quoted(value.utf8)) is not a number of bytes."))
            }
            let digits = value.drop { $0 == "0" }
            guard digits.count <= 18, let number = Int(digits.isEmpty ? "0" : digits) else {
                return .failure(tooLarge(declared: String(value), limits: limits))
            }
            if index > 0, number != length {
                return .failure(bad("The request has two different Content-Length values, \(length) and \(number)."))
            }
            length = number
        }
        if length > limits.maxBodyBytes { return .failure(tooLarge(declared: String(length), limits: limits)) }
        let expects = version == "HTTP/1.1" && length > 0
            && headers.values("Expect").contains { Substring($0).trimmingSpaces.lowercased() == "100-continue" }
        return .success((length, expects))
    }

    /// The 413 for a body of `declared` bytes.
    static func tooLarge(declared: String, limits: HTTPLimits) -> HTTPParseError {
        HTTPParseError(status: 413, "The request body is \(declared) bytes; the limit is \(limits.maxBodyBytes) bytes.")
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
