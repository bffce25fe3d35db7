/// How many requests a backend serves at once (`parallel`) and how many more may wait for a
/// place (`maxQueue`), as its section sets them.
public struct BackendCapacity: Sendable, Hashable {
    public var parallel: Int
    public var maxQueue: Int

    public init(parallel: Int, maxQueue: Int) {
        self.parallel = parallel
        self.maxQueue = maxQueue
    }
}
