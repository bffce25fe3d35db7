/// Text from a model, a tool or a file made safe to write to a terminal.
public enum TerminalText {
    /// `text` without terminal control: every escape sequence (CSI such as a screen clear, OSC
    /// such as a title or a clipboard write, DCS and the other strings, in their 7-bit and 8-bit
    /// forms) is removed whole, and every other control character but newline and tab is dropped.
    /// Text cut in the middle of a sequence leaves no escape behind, so pieces of a stream can
    /// be cleaned one by one.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var kept = String.UnicodeScalarView()
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar.value {
            case 0x1B:
                guard let next = scalars.popFirst() else { break }
                switch next {
                case "[": skipControlSequence(&scalars)
                case "]", "P", "X", "^", "_": skipString(&scalars)
                default:
                    // Intermediates, then one final character.
                    var last = next
                    while (0x20...0x2F).contains(last.value), let following = scalars.popFirst() { last = following }
                }
            case 0x9B: skipControlSequence(&scalars)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F: skipString(&scalars)
            default:
                if !isControl(scalar) { kept.append(scalar) }
            }
        }
        return String(kept)
    }

    /// Whether the terminal would take `scalar` as control rather than text: C0 but newline and
    /// tab, DEL, and C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0..<0x20, 0x7F...0x9F: true
        default: false
        }
    }

    /// Past a CSI's parameters and intermediates and its final character.
    private static func skipControlSequence(_ scalars: inout Substring.UnicodeScalarView) {
        while let scalar = scalars.popFirst() {
            if (0x40...0x7E).contains(scalar.value) || !(0x20...0x3F).contains(scalar.value) { return }
        }
    }

    /// Past a string (OSC, DCS, SOS, PM, APC) and its terminator: BEL, ESC \ or ST.
    private static func skipString(_ scalars: inout Substring.UnicodeScalarView) {
        while let scalar = scalars.popFirst() {
            switch scalar.value {
            case 0x07, 0x9C: return
            case 0x1B:
                if scalars.first == "\\" { scalars.removeFirst() }
                return
            default: continue
            }
        }
    }
}
