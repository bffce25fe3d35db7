#if canImport(Glibc)
import Glibc
#endif

/// Whether and how to colour terminal output.
public struct TerminalStyle: Sendable, Hashable {
    /// True to emit ANSI colour codes.
    public var colour: Bool

    public init(colour: Bool) { self.colour = colour }

    /// Colour only when `fd` is a terminal and NO_COLOR is unset.
    public static func detect(fd: Int32 = 1) -> TerminalStyle {
        TerminalStyle(colour: isatty(fd) == 1 && getenv("NO_COLOR") == nil)
    }

    func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }
    func green(_ text: String) -> String { paint(text, "32") }
    func red(_ text: String) -> String { paint(text, "31") }
    func amber(_ text: String) -> String { paint(text, "33") }
    func cyan(_ text: String) -> String { paint(text, "36") }
}
