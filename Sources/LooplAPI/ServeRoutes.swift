import LooplWeb

/// Every endpoint of `loopl serve`, which the routes' handlers answer with.
struct ServeEndpoints: Sendable {
    let chat: ChatEndpoint
    let completions: CompletionsEndpoint
    let responses: ResponsesEndpoint
    let messages: MessagesEndpoint
    let ollama: OllamaEndpoint
    let embeddings: EmbeddingsEndpoint
    let catalog: OllamaCatalog
    let runs: RunsEndpoint
    let sessions: SessionsEndpoint
    let ops: OpsEndpoint
}

extension RouteTable {
    /// The routes of `loopl serve`, one a line, in the order help and docs/serve.md list them.
    /// `metricsPublic`: whether `/metrics` answers without the key.
    static func serve(metricsPublic: Bool = false) -> RouteTable {
        let open = RouteTraits(needsKey: false)
        let anthropic = RouteTraits(errors: .anthropic)
        let ollama = RouteTraits(errors: .ollama, bodies: .jsonOrForm)
        return RouteTable(routes: [
            Route("GET", "/health", open, "200 while it listens; needs no key") { $0.ops.health($2) },
            Route("GET", "/v1/models", "the served models and aliases") { await $0.ops.list($2) },
            Route("GET", "/v1/models/{id...}", "one of them") { await $0.ops.model($1["id"], $2) },
            Route("POST", "/v1/chat/completions", "OpenAI's chat completions") { await $0.chat.handle($1.request, $2) },
            Route("POST", "/v1/completions", "a raw prompt's continuation") { await $0.completions.handle($1.request, $2) },
            Route("POST", "/v1/responses", "OpenAI's Responses, kept for continuation") { await $0.responses.create($1.request, $2) },
            Route("GET", "/v1/responses/{id...}", "a kept response") { await $0.responses.get($1["id"], $2) },
            Route("DELETE", "/v1/responses/{id...}", "forgets a kept response") { await $0.responses.delete($1["id"], $2) },
            Route("POST", "/v1/embeddings", "OpenAI's embeddings") { await $0.embeddings.openAI($1.request, $2) },
            Route("POST", "/v1/messages", anthropic, "Anthropic's Messages") { await $0.messages.handle($1.request, $2) },
            Route("POST", "/v1/messages/count_tokens", anthropic, "a Messages prompt's tokens") {
                await $0.messages.countTokens($1.request, $2)
            },
            Route("GET", "/metrics", RouteTraits(needsKey: !metricsPublic), "Prometheus metrics") { await $0.ops.metrics($2) },
            Route("POST", "/api/chat", ollama, "Ollama's chat") { await $0.ollama.chat($1.request, $2) },
            Route("POST", "/api/generate", ollama, "Ollama's generate") { await $0.ollama.generate($1.request, $2) },
            Route("POST", "/api/embed", ollama, "Ollama's embeddings") { await $0.embeddings.ollama($1.request, $2) },
            Route("POST", "/api/embeddings", ollama, "Ollama's older embeddings") { await $0.embeddings.ollama($1.request, $2, legacy: true) },
            Route("GET HEAD", "/api/tags", ollama, "Ollama's model list") { $2.respond(json: $0.catalog.tags()) },
            Route("GET", "/api/ps", ollama, "the started models") { $2.respond(json: await $0.catalog.ps()) },
            Route("POST", "/api/show", ollama, "a model's template and GGUF metadata") { endpoints, routed, responder in
                do { responder.respond(json: try endpoints.catalog.show(routed.request.body)) } catch {
                    responder.respond(ollama: APIError.from(error))
                }
            },
            Route("GET HEAD", "/api/version", ollama, "the version of Ollama's API followed") {
                $2.respond(json: ["version": .string(OllamaCatalog.version)])
            },
            Route("GET HEAD", "/", open, "the page, or 'Ollama is running' for a non-browser") {
                OllamaEndpoint.isProbe($1.request) ? OllamaEndpoint.probe($2) : $0.ops.page("/", $2)
            },
            Route("POST", "/loopl/v1/models/{id}/load", "loads a model now") { await $0.ops.load($1["id"], $1.request, $2) },
            Route("POST", "/loopl/v1/models/{id}/unload", "unloads an idle model") { await $0.ops.unload($1["id"], $1.request, $2) },
            Route("GET", "/loopl/v1/settings", "the page's default model, tools and MCP servers") { $0.runs.settings($2) },
            Route("POST", "/loopl/v1/runs", "an agent run, its events streamed") { await $0.runs.start($1.request, $2) },
            Route("POST", "/loopl/v1/runs/{id}/cancel", "stops a run") { $0.runs.cancel($1["id"], $2) },
            Route("POST", "/loopl/v1/runs/{id}/approvals/{callId}", "answers a call that waits for approval") {
                $0.runs.approve($1["id"], call: $1["callId"], $1.request, $2)
            },
            Route("GET", "/loopl/v1/sessions", "the saved conversations") { $0.sessions.list($2) },
            Route("GET", "/loopl/v1/sessions/{id}", "one, with its messages") { $0.sessions.get($1["id"], $2) },
            Route("DELETE", "/loopl/v1/sessions/{id}", "removes one") { $0.sessions.delete($1["id"], $2) },
        ] + WebPage.addresses.filter { $0 != "/" }.map { path in
            Route("GET", path, open, nil) { $0.ops.page(path, $2) }
        })
    }
}
