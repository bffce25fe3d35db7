import Foundation

/// How a `llama` or `server` backend drafts tokens to verify several in one decode step: config key
/// `speculative`, `{"type": "ngram" | "draft" | "none", "draftMax": N, "draftMin": N, "ngramMin": N,
/// "ngramMax": N, "draftModel": "small.gguf"}`.
public struct Speculation: Sendable, Hashable {
    /// Where drafts come from.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Prompt lookup: the tokens that followed the latest earlier occurrence of the last n-gram.
        case ngram
        /// A smaller model with the same vocabulary (``draftModel``), run greedily.
        case draft
        /// No drafting: one token per sequence and step.
        case none
    }

    public var kind: Kind
    /// The most tokens drafted at once; default 48, llama-server's. Short matches reach it only by
    /// doubling after drafts that held; a match of 12 tokens (a copy under way) drafts it at once.
    public var draftMax: Int
    /// The fewest tokens a draft holds to be verified; default 1.
    public var draftMin: Int
    /// The shortest n-gram looked up; default 2.
    public var ngramMin: Int
    /// The longest n-gram looked up, tried first; default 4.
    public var ngramMax: Int
    /// The GGUF file of the `draft` type's model; giving it makes `draft` the type.
    public var draftModel: String?
    /// For benchmarks: each draft's first token is replaced by another, so that every draft fails.
    package var spoilsDrafts = false

    public init(kind: Kind = .ngram, draftMax: Int = 48, draftMin: Int = 1, ngramMin: Int = 2, ngramMax: Int = 4,
                draftModel: String? = nil) {
        self.kind = kind
        self.draftModel = draftModel
        self.draftMax = draftMax
        self.draftMin = draftMin
        self.ngramMin = ngramMin
        self.ngramMax = ngramMax
    }

    /// Off.
    public static let none = Speculation(kind: .none)

    /// What makes these settings unusable, or nil: a draft model without the `draft` type (or
    /// the type without one), or sizes out of range.
    package var problem: String? {
        if (kind == .draft) != (draftModel != nil) {
            return "'draftModel' (the GGUF file drafts come from) goes with the type \"draft\", and only with it"
        }
        guard (1...64).contains(draftMin), (1...64).contains(draftMax), draftMin <= draftMax else {
            return "'draftMin' and 'draftMax' must be from 1 to 64, draftMin at most draftMax"
        }
        guard (1...16).contains(ngramMin), (1...16).contains(ngramMax), ngramMin <= ngramMax else {
            return "'ngramMin' and 'ngramMax' must be from 1 to 16, ngramMin at most ngramMax"
        }
        return nil
    }

    /// The error for ``problem`` in a configuration given in code.
    package func check() throws {
        if let problem { throw ConfigSection.error("speculative: \(problem)") }
    }

    /// Reads the `speculative` object of `section`; nil when it has none.
    package static func read(from section: inout ConfigSection) throws -> Speculation? {
        try section.nested("speculative") { inner in
            var speculation = Speculation()
            speculation.draftModel = try inner.optionalPath("draftModel")
            speculation.kind = try inner.optionalChoice("type") ?? (speculation.draftModel == nil ? speculation.kind : .draft)
            try inner.read("draftMax", into: &speculation.draftMax)
            try inner.read("draftMin", into: &speculation.draftMin)
            try inner.read("ngramMin", into: &speculation.ngramMin)
            try inner.read("ngramMax", into: &speculation.ngramMax)
            if let problem = speculation.problem { throw inner.error(problem) }
            return speculation
        }
    }
}
