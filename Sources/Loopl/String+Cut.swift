extension String {
    /// The text cut to at most `limit` UTF-8 bytes at a character boundary, with a note giving the
    /// full size when anything was cut.
    package func cut(toBytes limit: Int) -> String {
        let total = utf8.count
        guard total > limit else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: Swift.max(0, limit))
        while end > utf8.startIndex, end.samePosition(in: unicodeScalars) == nil { end = utf8.index(before: end) }
        let kept = utf8.distance(from: utf8.startIndex, to: end)
        return String(self[..<end]) + "\n[cut at \(kept) of \(total) bytes]"
    }
}
