import Foundation
import Loopl

/// How many models `loopl serve` keeps loaded at once (`serve.maxLoaded`) and in how much memory
/// (`serve.memoryBudgetMiB`, by ``ModelMemory``'s estimates); nil: no limit.
package struct ModelBudget: Sendable, Hashable {
    package var maxLoaded: Int?
    package var bytes: Int?

    package init(maxLoaded: Int? = nil, bytes: Int? = nil) {
        self.maxLoaded = maxLoaded
        self.bytes = bytes
    }

    /// The default memory budget: three quarters of the machine's physical memory.
    package static var defaultBytes: Int { Int(ProcessInfo.processInfo.physicalMemory / 4 * 3) }

    /// Whether a model needing `need` bytes fits beside `count` models using `used` bytes.
    func fits(need: Int, beside count: Int, using used: Int) -> Bool {
        (maxLoaded.map { count < $0 } ?? true) && (bytes.map { used + need <= $0 } ?? true)
    }

    /// The error of a model that cannot fit even with nothing else loaded, with the figures.
    func tooBig(_ backend: String, need: Int, loaded: [String: Int]) -> LooplError {
        let budget = bytes.map(ModelMemory.mib) ?? "unlimited"
        let others = loaded.isEmpty ? "nothing" : loaded.sorted { $0.key < $1.key }.map { "\($0.key) (\(ModelMemory.mib($0.value)))" }.joined(separator: ", ")
        return LooplError(.invalidConfiguration, "The model '\(backend)' needs about \(ModelMemory.mib(need)) (weights and KV cache), more than the memory budget of \(budget) (serve.memoryBudgetMiB); loaded: \(others). Raise the budget, or lower its contextLength or parallel.")
    }
}
