/// A child's standard output in chunks, read only as fast as it is consumed (see ``ChunkCredit``).
package struct ChildOutput: AsyncSequence, Sendable {
    package typealias Element = [UInt8]
    let stream: AsyncStream<[UInt8]>
    let credit: ChunkCredit

    package func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), credit: credit)
    }

    /// Takes the chunks one by one, giving back a credit for each.
    package struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<[UInt8]>.Iterator
        let credit: ChunkCredit

        /// The next chunk; nil at end of file.
        package mutating func next() async -> [UInt8]? {
            let chunk = await base.next()
            if chunk != nil { credit.release() }
            return chunk
        }
    }
}
