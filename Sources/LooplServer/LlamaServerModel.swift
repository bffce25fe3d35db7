// The `server` backend (a child llama-server, or an OpenAI-compatible server by URL) lives here.
