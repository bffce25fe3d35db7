/// The status the `loopl` process exits with.
public struct ExitCode: RawRepresentable, Sendable, Hashable, Error {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The command did what was asked.
    public static let success = ExitCode(rawValue: 0)
    /// The command failed at run time: a missing model, a crashed backend, ...
    public static let failure = ExitCode(rawValue: 1)
    /// The command line was wrong.
    public static let usage = ExitCode(rawValue: 2)
}
