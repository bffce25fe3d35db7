/// Why a child's input cannot take a write.
package struct ChildInputError: Error, Sendable {
    /// The reason, as the end of a sentence about the child: "it stopped reading its input …".
    package let reason: String
}
