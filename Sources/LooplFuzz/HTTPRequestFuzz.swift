import LooplHTTP

/// The HTTP server's request parser: the input is the bytes a client sends on one connection
/// (small limits, so that the 413 and 431 paths are reached). Fed in pseudo-random pieces it must
/// give the same requests, `100 Continue`s and failure as fed whole, and never more than it was fed.
package enum HTTPRequestFuzz {
    /// The target, named `http`.
    package static let target = FuzzTarget(name: "http", dictionary: dictionary.map { Array($0.utf8) }) { run($0) }

    /// The limits the parser runs with.
    static let limits: HTTPLimits = {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 2048
        limits.maxHeaderCount = 16
        limits.maxBodyBytes = 4096
        return limits
    }()

    /// Checks one input; returns the property it broke, nil when none.
    static func run(_ bytes: [UInt8]) -> String? {
        let whole = events(bytes[...], pieces: false)
        let pieces = events(bytes[...], pieces: true)
        guard whole == pieces else { return "fed in pieces the parser gave \(pieces), fed whole \(whole)" }
        let consumed = whole.reduce(0) { total, event in
            if case .request(let request) = event { return total + request.body.count } else { return total }
        }
        if consumed > bytes.count { return "the requests' bodies hold \(consumed) bytes, more than the \(bytes.count) fed" }
        return nil
    }

    /// Every event the parser gives for `bytes`, fed at once or in pieces of 1 to 64 bytes.
    static func events(_ bytes: ArraySlice<UInt8>, pieces: Bool) -> [HTTPParseEvent] {
        var parser = HTTPRequestParser(limits: limits)
        var seed = FuzzInput.checksum(bytes)
        var rest = bytes
        var events: [HTTPParseEvent] = []
        while !rest.isEmpty {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let piece = pieces ? rest.prefix(Int(seed >> 58) + 1) : rest
            rest = rest.dropFirst(piece.count)
            parser.feed(piece)
            while true {
                let event = parser.next()
                if event == .needMore { break }
                events.append(event)
                if case .failure = event { return events }
            }
        }
        return events
    }

    /// Words of requests that mutations insert.
    static let dictionary = [
        "GET ", "POST ", "HEAD ", " HTTP/1.1\r\n", " HTTP/1.0\r\n", " HTTP/2.0\r\n", "\r\n", "\r\n\r\n", "\n", "/v1/chat/completions",
        "/v1/models?x=1", "http://host/p", "*", "Host: ", "Content-Length: ", "Content-Length: 5, 5", "Transfer-Encoding: chunked",
        "Expect: 100-continue", "Connection: close", "Connection: keep-alive", ": ", " \t", "0", "5", "4097", "99999999999999999999",
        "\u{FF}", "\u{E9}", "\r", "\t",
    ]
}
