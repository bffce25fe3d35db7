import Foundation
import Loopl
import Synchronization

/// The models `loopl serve` answers for: each served backend under its name and its aliases,
/// started on its first request (or all at once by ``preload()``) and closed by ``closeAll()``.
package actor ModelDirectory {
    /// How a model id resolves, and what to list at `/v1/models`.
    package struct Names: Sendable {
        /// Every id that `/v1/models` lists: backend names, then aliases, without `"*"`.
        package let ids: [String]
        /// The backend each id (name or alias) names.
        let backendFor: [String: String]
        /// The backend whose aliases hold `"*"`: it answers every other name.
        let catchAll: String?
        /// The backend a request without `model` uses.
        package let defaultBackend: String?

        /// The backend that answers `model` (nil: the default), or a 404 listing the ids.
        package func backend(for model: String?) throws(APIError) -> String {
            guard let model, !model.isEmpty else {
                guard let defaultBackend else {
                    throw .invalidRequest("Name a model: the default backend is not served. Served: \(ids.joined(separator: ", ")).",
                                          param: "model")
                }
                return defaultBackend
            }
            if let backend = backendFor[model] ?? catchAll { return backend }
            throw .modelNotFound(model, available: ids)
        }
    }

    private enum Slot {
        case starting(Task<any Model, any Error>)
        case running(any Model)
        case closing(Task<Void, Never>)
    }

    /// What the server serves now: the config's backends and the folder's models, their names
    /// and limits. The folder's part changes as files come and go.
    private struct Catalog: Sendable {
        var names: Names
        var limits: [String: ModelLimit]
        var backends: [String: BackendConfig]
        /// The folder's models, as last scanned.
        var files: [ModelFolder.Entry] = []
    }

    /// The ids to list and how each resolves.
    package nonisolated var names: Names { catalog.withLock { $0.names } }
    /// Each served backend's limit, by backend name.
    package nonisolated var limits: [String: ModelLimit] { catalog.withLock { $0.limits } }
    private nonisolated let catalog: Mutex<Catalog>
    private let config: LooplConfig
    private let served: [String]
    private let folder: ModelFolder?
    private let modelDefaults: JSONObject
    private var watcher: Task<Void, Never>?
    private var slots: [String: Slot] = [:]
    /// Why each backend's last start failed, until one succeeds or it is unloaded.
    private var failures: [String: String] = [:]
    /// When each loaded backend that is not kept forever is unloaded, once idle.
    private var expiries: [String: ContinuousClock.Instant] = [:]
    /// The task that unloads idle models when their time comes; nil while none has one.
    private var sweeper: Task<Void, Never>?
    /// How many models may be loaded at once, and in how much memory.
    private let budget: ModelBudget
    /// The backends given room to load or loaded, with the memory each was estimated to need.
    private var admitted: [String: Int] = [:]
    /// When each backend last finished a request or loaded: the least recent idle one goes first.
    private var lastUsed: [String: ContinuousClock.Instant] = [:]
    /// How many requests wait for each backend's load, which its `maxConcurrent` and `maxQueue` bound.
    private var loadWaiters: [String: Int] = [:]
    /// Loads that wait for a busy model to become idle.
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    private var closed = false
    /// Each backend's loads and unloads so far, for `/metrics`.
    private var loads: [String: Int] = [:]
    private var unloads: [String: Int] = [:]

    /// Serves the backends of `config` named in `served` (nil: all of them), and the GGUF files
    /// of `folder` with the backend keys of `modelDefaults`; a file named as a backend or an
    /// alias is an error that names both.
    package init(config: LooplConfig, served: [String]? = nil, folder: ModelFolder? = nil, modelDefaults: JSONObject = [:],
                 budget: ModelBudget = ModelBudget()) throws {
        let all = config.backendNames
        let chosen = served ?? all
        if let unknown = chosen.first(where: { !all.contains($0) }) {
            throw LooplError(.invalidConfiguration, "No backend named '\(unknown)' to serve. Configured: \(all.joined(separator: ", ")).")
        }
        self.config = config
        self.served = chosen
        self.folder = folder
        self.modelDefaults = modelDefaults
        self.budget = budget
        let files = folder?.scan() ?? []
        let catalog = try Self.catalog(config: config, served: chosen, files: files, defaults: modelDefaults, limits: [:])
        if let folder, let file = files.first(where: { !catalog.files.contains($0) }) {
            let owner = catalog.names.backendFor[file.name] ?? file.name
            throw LooplError(.invalidConfiguration, "The model file \(file.path) in \(folder.path) is named '\(file.name)', as backend '\(owner)' of the config is (or one of its aliases); rename the file or the backend.")
        }
        self.catalog = Mutex(catalog)
    }

    /// The catalog of the config's `served` backends and the folder's `files` that no backend or
    /// alias names already; `limits` are kept for the names that have them.
    private static func catalog(config: LooplConfig, served: [String], files: [ModelFolder.Entry], defaults: JSONObject,
                                limits old: [String: ModelLimit]) throws -> Catalog {
        var backends = try Dictionary(uniqueKeysWithValues: served.map { ($0, try config.backend($0)) })
        var names = try Self.names(of: served, backends: backends, default: config.defaultBackend)
        var kept: [ModelFolder.Entry] = []
        for file in files where names.backendFor[file.name] == nil {
            backends[file.name] = try config.backend(named: file.name, file: file.path, defaults: defaults)
            kept.append(file)
        }
        let folderNames = kept.map(\.name)
        names = Names(ids: served + folderNames + names.ids.dropFirst(served.count), backendFor: names.backendFor.merging(folderNames.map { ($0, $0) }) { $1 },
                      catchAll: names.catchAll, defaultBackend: names.defaultBackend)
        let limits = Dictionary(uniqueKeysWithValues: backends.map { name, backend in
            (name, old[name] ?? ModelLimit(backend: name, capacity: backend.servedCapacity))
        })
        return Catalog(names: names, limits: limits, backends: backends, files: kept)
    }

    private static func names(of served: [String], backends: [String: BackendConfig], default defaultName: String) throws -> Names {
        var backendFor: [String: String] = Dictionary(uniqueKeysWithValues: served.map { ($0, $0) })
        var aliases: [String] = []
        var catchAll: String?
        for name in served {
            for alias in backends[name]?.aliases ?? [] {
                if alias == "*" {
                    if let catchAll { throw Self.clash("*", catchAll, name) }
                    catchAll = name
                    continue
                }
                if let other = backendFor[alias] { throw Self.clash(alias, other, name) }
                backendFor[alias] = name
                aliases.append(alias)
            }
        }
        let defaultBackend = served.contains(defaultName) ? defaultName : nil
        return Names(ids: served + aliases, backendFor: backendFor, catchAll: catchAll, defaultBackend: defaultBackend)
    }

    /// Reads the folder again: a file added is served, a file removed is no longer (its model
    /// unloaded once idle; while busy it stays until a later look).
    package func rescan() async {
        guard let folder else { return }
        let before = catalog.withLock { $0 }
        let files = folder.scan(reusing: before.files)
        guard files != before.files else { return }
        let gone = Set(before.files.map(\.name)).subtracting(files.map(\.name))
        var busy: [ModelFolder.Entry] = []
        for name in gone where slots[name] != nil {
            do { try await unload(name) } catch { busy += before.files.filter { $0.name == name } }
        }
        guard let next = try? Self.catalog(config: config, served: served, files: files + busy, defaults: modelDefaults,
                                          limits: before.limits) else { return }
        catalog.withLock { $0 = next }
    }

    /// Looks at the folder every `interval` until ``closeAll()``.
    package func watch(every interval: Duration = .seconds(2)) {
        guard folder != nil, watcher == nil else { return }
        watcher = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await self.rescan()
            }
        }
    }

    /// Why the folder's model `backend` cannot be served, from its file; nil for another.
    private func fileProblem(of backend: String) -> String? {
        catalog.withLock { $0.files.first { $0.name == backend }?.problem }
    }

    /// The backend named `backend`, of the config or the folder.
    private nonisolated func backendConfig(_ backend: String) throws -> BackendConfig {
        guard let found = catalog.withLock({ $0.backends[backend] }) else {
            throw LooplError(.invalidConfiguration, "No model named '\(backend)' is served.")
        }
        return found
    }

    private nonisolated func isFolderModel(_ backend: String) -> Bool {
        catalog.withLock { catalog in catalog.files.contains { $0.name == backend } }
    }

    private static func clash(_ alias: String, _ first: String, _ second: String) -> LooplError {
        LooplError(.invalidConfiguration, "The model name '\(alias)' is claimed by both backend '\(first)' and backend '\(second)'; keep it in one backend's aliases.")
    }

    /// The running model of `backend`, started now if it is not; one start is shared by the
    /// requests that wait for it, a model being unloaded is started again once it is closed, and
    /// a failed start is tried again by the next request.
    package func model(for backend: String) async throws -> any Model {
        if closed { throw LooplError(.closed, "The server is shutting down.") }
        switch slots[backend] {
        case .running(let model)?: return model
        case .starting(let task)?:
            // Beside the request that began the load, as many as its places and queue hold.
            let room = limits[backend]?.capacity.map { $0.parallel + $0.maxQueue - 1 } ?? .max
            guard loadWaiters[backend, default: 0] < room else {
                throw LooplError(.busy, "The model '\(backend)' is loading and \(room + 1) requests wait for it (maxConcurrent and maxQueue): try again later.")
            }
            loadWaiters[backend, default: 0] += 1
            defer { loadWaiters[backend, default: 1] -= 1 }
            return try await task.value
        case .closing(let task)?:
            await task.value
            forget(backend, closing: task)
            return try await model(for: backend)
        case nil:
            let config = try backendConfig(backend)
            let task = Task {
                try await self.admit(backend, need: ModelMemory.estimate(config.section))
                return try await config.start()
            }
            slots[backend] = .starting(task)
            do {
                let model = try await task.value
                if closed {
                    await model.close()
                    throw LooplError(.closed, "The server is shutting down.")
                }
                slots[backend] = .running(model)
                failures[backend] = nil
                loads[backend, default: 0] += 1
                await finished(backend)
                return model
            } catch {
                slots[backend] = nil
                released(backend)
                failures[backend] = (error as? LooplError)?.message ?? "\(error)"
                throw error
            }
        }
    }

    /// Where `backend`'s model is in its life.
    package func state(of backend: String) -> ModelState {
        switch slots[backend] {
        case .running?: .loaded
        case .starting?: .loading
        case .closing?, nil: (failures[backend] ?? fileProblem(of: backend)).map(ModelState.failed) ?? .unloaded
        }
    }

    /// Closes `backend`'s model, ending its children and workers and freeing its memory; a
    /// conflict while requests run or wait on it, or while it starts.
    package func unload(_ backend: String) async throws(APIError) {
        guard let limit = limits[backend] else { throw .modelNotFound(backend, available: names.ids) }
        let busy = limit.running + limit.waiting
        guard busy == 0 else {
            throw .conflict("The model '\(backend)' has \(busy) requests in flight or queued; unload it once they finish.")
        }
        failures[backend] = nil
        expiries[backend] = nil
        switch slots[backend] {
        case .starting?: throw .conflict("The model '\(backend)' is loading; unload it once it has loaded.")
        case .closing(let task)?:
            await task.value
            forget(backend, closing: task)
        case .running(let model)?:
            let task = Task { await model.close() }
            slots[backend] = .closing(task)
            await task.value
            forget(backend, closing: task)
            released(backend)
            unloads[backend, default: 0] += 1
        case nil: return
        }
    }

    /// How long `backend`'s model stays loaded after a request, when the request does not say:
    /// its `keepAlive`, else five minutes for a model of the folder and forever for a backend of the config.
    package nonisolated func keepAlive(of backend: String) -> KeepAlive {
        (try? backendConfig(backend))?.keepAlive ?? (isFolderModel(backend) ? .fiveMinutes : .forever)
    }

    /// When `backend`'s model is unloaded if it stays idle; nil: never (or not loaded).
    package func expiry(of backend: String) -> ContinuousClock.Instant? { expiries[backend] }

    /// What `backend`'s model takes and how it is used, while it is loaded or loading; nil otherwise.
    package func usage(of backend: String) -> ModelUsage? {
        guard let memory = admitted[backend], let limit = limits[backend] else { return nil }
        switch slots[backend] {
        case .running?, .starting?: break
        case .closing?, nil: return nil
        }
        let busy = limit.running + limit.waiting > 0
        let now = ContinuousClock.now
        let idle = busy ? nil : lastUsed[backend].map { (now - $0).components.seconds }
        let expiry = busy ? nil : expiries[backend].map { Int(Date().timeIntervalSince1970) + Int(($0 - now).components.seconds) }
        return ModelUsage(memory: memory, inFlight: limit.running, queued: limit.waiting, idleSeconds: idle.map(Int.init), expiresAt: expiry)
    }

    /// Each served backend's tally for `/metrics`: loaded or not, its memory, loads and unloads.
    package func tallies() -> [String: ModelTally] {
        Dictionary(uniqueKeysWithValues: limits.keys.map { backend in
            var loaded = false
            if case .running? = slots[backend] { loaded = true }
            return (backend, ModelTally(loaded: loaded, memory: admitted[backend] ?? 0,
                                        loads: loads[backend] ?? 0, unloads: unloads[backend] ?? 0))
        })
    }

    /// Starts `backend`'s keep-alive after a load or a request: `keepAlive` (the request's `keep_alive`),
    /// else the backend's; 0 unloads it now unless other requests run or wait on it.
    package func finished(_ backend: String, keepAlive: KeepAlive? = nil) async {
        lastUsed[backend] = .now
        wakeRoomWaiters()
        guard case .running? = slots[backend] else { return }
        guard let seconds = (keepAlive ?? self.keepAlive(of: backend)).seconds else {
            expiries[backend] = nil
            return
        }
        guard seconds > 0 else {
            expiries[backend] = nil
            try? await unload(backend)
            return
        }
        expiries[backend] = .now + .seconds(seconds)
        if sweeper == nil { sweeper = Task { await self.sweep() } }
    }

    /// Unloads each model whose keep-alive has run out and that no request runs or waits on,
    /// until no model has an expiry.
    private func sweep() async {
        while !closed, let next = expiries.values.min() {
            try? await Task.sleep(until: min(next, .now + .seconds(1)), clock: .continuous)
            for (backend, expiry) in expiries where expiry <= .now {
                // A busy model's requests start its keep-alive again as they finish.
                expiries[backend] = nil
                try? await unload(backend)
            }
        }
        sweeper = nil
    }

    /// Waits until `backend`, which needs `need` bytes, fits the budget beside the models given
    /// room before it, unloading the least recently used idle ones; while the others are busy,
    /// waits for one to finish. A model that cannot fit even alone fails with the figures.
    private func admit(_ backend: String, need: Int) async throws {
        while true {
            if closed { throw LooplError(.closed, "The server is shutting down.") }
            let others = admitted.filter { $0.key != backend }
            let used = others.values.reduce(0, +)
            if budget.fits(need: need, beside: others.count, using: used) {
                admitted[backend] = need
                return
            }
            guard budget.fits(need: need, beside: 0, using: 0) else { throw budget.tooBig(backend, need: need, loaded: others) }
            let idle = others.keys.filter { name in
                guard case .running? = slots[name], let limit = limits[name] else { return false }
                return limit.running + limit.waiting == 0
            }
            if let victim = idle.min(by: { (lastUsed[$0] ?? .now) < (lastUsed[$1] ?? .now) }), (try? await unload(victim)) != nil { continue }
            await withCheckedContinuation { roomWaiters.append($0) }
        }
    }

    /// Gives back the room of `backend`, now unloaded or failed, to the loads that wait.
    private func released(_ backend: String) {
        admitted[backend] = nil
        wakeRoomWaiters()
    }

    private func wakeRoomWaiters() {
        let waiting = roomWaiters
        roomWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Forgets the slot of `backend` if it is still the close `task`, now done.
    private func forget(_ backend: String, closing task: Task<Void, Never>) {
        if case .closing(let current)? = slots[backend], current == task { slots[backend] = nil }
    }

    /// The config section of `backend` as written (paths made absolute); nil for an unknown name.
    package nonisolated func section(of backend: String) -> JSONObject? {
        (try? backendConfig(backend))?.section
    }

    /// The kind of `backend` (`llama`, `server`, `stdio`…); nil for an unknown name.
    package nonisolated func kind(of backend: String) -> String? {
        (try? backendConfig(backend))?.kind
    }

    /// The size in bytes of `backend`'s model file (its `model`); nil without a readable one.
    package nonisolated func fileSize(of backend: String) -> Int? {
        guard let path = section(of: backend)?["model"]?.stringValue,
              let attributes = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    /// The backends started so far, by name, with their models.
    package func running() -> [(String, any Model)] {
        slots.keys.sorted().compactMap { backend -> (String, any Model)? in
            if case .running(let model)? = slots[backend] { (backend, model) } else { nil }
        }
    }

    /// Starts every served backend now; the first failure is thrown.
    package func preload() async throws {
        for backend in Set(names.backendFor.values).sorted() { _ = try await model(for: backend) }
    }

    /// Closes every started model (ending its children) and refuses later requests.
    package func closeAll() async {
        closed = true
        sweeper?.cancel()
        watcher?.cancel()
        wakeRoomWaiters()
        let current = slots
        slots = [:]
        for slot in current.values {
            switch slot {
            case .running(let model): await model.close()
            case .starting(let task): if let model = try? await task.value { await model.close() }
            case .closing(let task): await task.value
            }
        }
    }
}
