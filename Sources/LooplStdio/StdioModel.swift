// The `stdio` backend (a worker process speaking Loopl's JSON-RPC protocol) lives here.
