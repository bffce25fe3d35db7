import Loopl
@testable import LooplCLI
import Testing

/// `loopl run`'s plain printer writes the model's text to a terminal without its escape
/// sequences, and to a pipe byte for byte.
@Suite struct EventPrinterEscapeTests {
    static let attack = "copy \u{1B}]52;c;cm0gLXJmIH4=\u{07}this\u{1B}[2J\n\tdone"

    @Test func aTerminalGetsNoEscapes() {
        let captured = CapturedConsole()
        let printer = EventPrinter(console: captured.console, json: false, verbose: false, terminal: (true, true))
        printer.print(.text(Self.attack))
        printer.print(.retrying(iteration: 2, reason: "bad \u{1B}]0;title\u{07}call"))
        #expect(captured.out == "copy this\n\tdone\n", "\(captured.out.debugDescription)")
        #expect(!captured.err.contains("\u{1B}") && captured.err.contains("bad call"), "\(captured.err.debugDescription)")
    }

    @Test func aPipeGetsTheTextAsItIs() {
        let captured = CapturedConsole()
        let printer = EventPrinter(console: captured.console, json: false, verbose: false, terminal: (false, false))
        printer.print(.text(Self.attack))
        #expect(captured.out == Self.attack)
    }
}
