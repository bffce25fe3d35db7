extension String {
    /// The text padded with spaces on the right to `width`: a left-aligned column.
    func column(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }

    /// The text padded with spaces on the left to `width`: a right-aligned column.
    func padded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
