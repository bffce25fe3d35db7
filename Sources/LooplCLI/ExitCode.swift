/// The status the `loopl` process exits with.
package struct ExitCode: RawRepresentable, Sendable, Hashable, Error {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The command did what was asked.
    package static let success = ExitCode(rawValue: 0)
    /// The command failed at run time: a missing model, a crashed backend, ...
    package static let failure = ExitCode(rawValue: 1)
    /// The command line was wrong.
    package static let usage = ExitCode(rawValue: 2)
}
