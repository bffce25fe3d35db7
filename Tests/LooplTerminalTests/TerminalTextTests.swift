import Foundation
import Loopl
import LooplTerminal
import Testing

/// Escape sequences from a model or a tool never reach the terminal: a clipboard write (OSC 52),
/// a window title, a screen clear, in 7-bit and 8-bit forms. Newlines and tabs stay.
@Suite struct TerminalTextTests {
    static let esc = "\u{1B}"
    /// Attacks, each with the text that must remain.
    static let attacks: [(String, String)] = [
        ("copy \(esc)]52;c;cm0gLXJmIH4=\u{07}this", "copy this"),
        ("\(esc)]0;pwned title\(esc)\\hello", "hello"),
        ("\(esc)[2J\(esc)[3J\(esc)[Hclean", "clean"),
        ("\(esc)[1;31mred\(esc)[0m", "red"),
        ("\u{9B}2Jeight-bit \u{9D}52;c;eA==\u{9C}csi", "eight-bit csi"),
        ("\(esc)P+q544e\(esc)\\dcs", "dcs"),
        ("\(esc)creset\(esc)(Bcharset", "resetcharset"),
        ("bell\u{07} back\u{08}space\r return", "bell backspace return"),
        ("cut at the end\(esc)]52;c;", "cut at the end"),
        ("lone escape \(esc)", "lone escape "),
        ("lines\nand\ttabs, é and 🐇 stay", "lines\nand\ttabs, é and 🐇 stay"),
    ]

    @Test func escapeSequencesAndControlsAreRemoved() {
        for (attack, kept) in Self.attacks {
            #expect(TerminalText.sanitized(attack) == kept, "\(attack.debugDescription)")
        }
    }

    /// A stream cut in the middle of a sequence leaves no escape in any piece.
    @Test func piecesOfAStreamLeaveNoEscape() {
        let text = "a\(Self.esc)]52;c;cm0=\u{07}b\(Self.esc)[2Jc"
        for cut in 0...text.unicodeScalars.count {
            let scalars = Array(text.unicodeScalars)
            let pieces = [String(String.UnicodeScalarView(scalars[..<cut])), String(String.UnicodeScalarView(scalars[cut...]))]
            let shown = pieces.map(TerminalText.sanitized).joined()
            #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) }, "cut at \(cut)")
        }
    }

    /// The view shows the model's text, thinking, warnings, tool names, arguments and results
    /// without their escapes (and, without colour, writes none of its own).
    @Test func theViewRemovesEscapes() {
        let clip = "\(Self.esc)]52;c;cm0gLXJmIH4=\u{07}"
        let clear = "\(Self.esc)[2J"
        var transcript = Transcript()
        for event: AgentEvent in [
            .reasoning("think \(clip)hard"), .text("answer \(clear)here"),
            .toolStarted(ToolCall(id: "c1", name: "read\(clear)_file", arguments: ["path": .string("a\(clip)")])),
            .toolFinished(ToolResult(callId: "c1", name: "read\(clear)_file", isError: false, durationMs: 2, content: "file \(clip)body")),
            .warning("warn \(clear)user"),
        ] { transcript.apply(event) }
        for showReasoning in [false, true] {
            let view = TranscriptView(style: TerminalStyle(colour: false), verbose: true, showReasoning: showReasoning)
            let shown = view.render(transcript)
            #expect(!shown.contains(Self.esc) && !shown.contains("\u{07}"), "\(shown.debugDescription)")
            #expect(shown.contains("answer here") && shown.contains("file body") && shown.contains("warn user"), "\(shown)")
        }
    }
}
