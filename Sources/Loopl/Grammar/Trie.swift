/// A prefix tree of strings, for the grammar of JSON strings that are none of them.
struct Trie {
    struct Node {
        var children: [(character: Character, node: Int)] = []
        var terminal = false
    }

    private(set) var nodes = [Node()]

    init(_ strings: [String]) {
        for string in strings {
            var current = 0
            for character in string {
                if let next = nodes[current].children.first(where: { $0.character == character })?.node {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].children.append((character, nodes.count - 1))
                    current = nodes.count - 1
                }
            }
            nodes[current].terminal = true
        }
    }

    /// An expression for the string contents that, written after the path to `node`, spell none of the strings.
    /// `char` is the name of the rule for one JSON string character.
    func exclusion(node index: Int, char: String, isRoot: Bool = false) -> String {
        let node = nodes[index]
        if node.children.isEmpty { return node.terminal ? "\(char)+" : "\(char)*" }
        var alternatives: [String] = []
        var taken = ""
        for (character, child) in node.children {
            alternatives.append(Grammar.literal(String(character)) + " " + GrammarBuilder.group(exclusion(node: child, char: char)))
            taken += Trie.classText(character)
        }
        alternatives.append(#"([^"\\\x7F\x00-\x1F"# + taken + #"] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})) "# + char + "*")
        let body = "(" + alternatives.joined(separator: " | ") + ")"
        return node.terminal ? body : body + "?"
    }

    /// A character as it is written inside a GBNF character class.
    static func classText(_ character: Character) -> String {
        var out = ""
        for scalar in character.unicodeScalars {
            switch scalar {
            case "]", "[", "-", "\\", "\"": out += "\\" + String(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += Grammar.hexEscape(scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
