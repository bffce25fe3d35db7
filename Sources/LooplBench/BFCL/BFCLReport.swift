import Loopl

/// The scores of a run of the function-calling sample: a row per category, and every reply.
package struct BFCLReport: Sendable {
    package var replies: [BFCLRun.Reply]

    package init(replies: [BFCLRun.Reply]) { self.replies = replies }

    /// One category's figures.
    package struct Row: Sendable {
        package var category: BFCLCase.Category
        package var cases: Int
        package var right: Int
        /// Replies with call markup in `content`.
        package var leaks: Int
        /// The median completion tokens of the replies that were right.
        package var medianTokens: Int?
    }

    package var rows: [Row] {
        BFCLCase.Category.allCases.compactMap { category in
            let replies = replies.filter { $0.category == category }
            guard !replies.isEmpty else { return nil }
            let right = replies.filter { $0.failure == nil }
            let tokens = right.map(\.completionTokens).sorted()
            return Row(category: category, cases: replies.count, right: right.count,
                       leaks: replies.filter(\.leaksMarkup).count, medianTokens: tokens.isEmpty ? nil : tokens[tokens.count / 2])
        }
    }

    /// The table, a line per category and the total.
    package var table: String {
        var lines = ["category            right   cases   score  markup  median tokens (right)"]
        for row in rows {
            lines.append(line(row.category.rawValue, row.right, row.cases, row.leaks, row.medianTokens.map(String.init) ?? "-"))
        }
        let all = rows
        lines.append(line("all", all.map(\.right).reduce(0, +), all.map(\.cases).reduce(0, +), all.map(\.leaks).reduce(0, +), ""))
        return lines.joined(separator: "\n")
    }

    private func line(_ name: String, _ right: Int, _ cases: Int, _ leaks: Int, _ tokens: String) -> String {
        let score = cases == 0 ? 0 : Double(right) * 100 / Double(cases)
        return name.column(18) + [String(right), String(cases), String(format: "%.1f%%", score), String(leaks), tokens]
            .map { $0.padded(8) }.joined()
    }

    /// Every reply with its verdict, for another scorer to check.
    package var json: JSONValue {
        .array(replies.map { reply in
            [
                "id": .string(reply.id), "category": .string(reply.category.rawValue),
                "calls": .array(reply.calls.map { ["name": .string($0.name), "arguments": .object($0.arguments)] }),
                "content": .string(reply.content), "finish_reason": .string(reply.finishReason),
                "completion_tokens": .integer(reply.completionTokens),
                "right": .bool(reply.failure == nil), "failure": reply.failure.map(JSONValue.string) ?? .null,
            ]
        })
    }
}
