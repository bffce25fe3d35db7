#!/usr/bin/env python3
"""Checks of `loopl serve` over raw HTTP, standard library only: what the SDK checks cannot see.

    serve_check.py --port PORT [--key KEY] [--model NAME] [--pid PID] CHECK...

Prints `ok NAME: detail` or `FAIL NAME: why` per check; exits 1 when one failed.
"""

import argparse
import http.client
import json
import os
import signal
import socket
import threading
import time

from client_checks import CheckFailed as Failure, expect, run_each

LONG_PROMPT = "Count from 1 to 300, one number per line, and nothing else."


class Server:
    def __init__(self, port, key, model, pid):
        self.port, self.key, self.model, self.pid = port, key, model, pid

    def headers(self, extra=None):
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = "Bearer " + self.key
        headers.update(extra or {})
        return headers

    def connection(self, timeout=300):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None):
        connection = self.connection()
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=self.headers(headers))
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), payload

    def chat_body(self, prompt="Say hello.", max_tokens=16, stream=False):
        return {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                "max_tokens": max_tokens, "temperature": 0, "stream": stream}

    def open_stream(self, prompt=LONG_PROMPT, max_tokens=300):
        """Starts a streamed chat; returns the connection and a reader of its SSE data lines."""
        connection = self.connection()
        connection.request("POST", "/v1/chat/completions", body=json.dumps(self.chat_body(prompt, max_tokens, True)).encode(),
                           headers=self.headers())
        response = connection.getresponse()
        return connection, response

    def rss_kib(self):
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure("no VmRSS for pid %d" % self.pid)


def data_lines(response):
    """Yields each SSE `data:` payload of a streamed response (comments skipped)."""
    while True:
        line = response.readline()
        if not line:
            return
        line = line.decode().rstrip("\r\n")
        if line.startswith("data: "):
            yield line[len("data: "):]


def error_shape(payload):
    body = json.loads(payload)
    error = body.get("error")
    expect(isinstance(error, dict) and all(k in error for k in ("message", "type", "code")),
           "not an error object: %r" % payload[:300])
    return error


def check_health(server):
    status, _, payload = Server(server.port, None, server.model, server.pid).request("GET", "/health")
    expect(status == 200 and json.loads(payload) == {"status": "ok"}, "GET /health without a key: %d %r" % (status, payload))
    return "200 without a key"


def check_errors(server):
    seen = []
    status, headers, payload = server.request("POST", "/v1/chat/completions", b"{not json")
    expect(status == 400, "bad JSON: %d" % status)
    error_shape(payload)
    seen.append("bad JSON 400")
    status, _, payload = server.request("POST", "/v1/chat/completions", {"model": server.model, "messages": "hi"})
    expect(status == 400 and "messages" in error_shape(payload)["message"], "messages as a string: %d %r" % (status, payload))
    seen.append("wrong type 400")
    status, _, payload = server.request("GET", "/v1/nothing-here")
    expect(status == 404, "unknown path: %d" % status)
    error_shape(payload)
    seen.append("unknown path 404")
    # The server answers a declared length over its limit at once and closes, so only the head is sent.
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    raw.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
                % (17 * 1024 * 1024, b"Authorization: Bearer %s\r\n" % server.key.encode() if server.key else b""))
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        data = raw.recv(65536)
        if not data:
            break
        answer += data
    raw.close()
    expect(answer.startswith(b"HTTP/1.1 413"), "a 17 MiB body: %r" % answer[:100])
    error_shape(answer.split(b"\r\n\r\n", 1)[1])
    seen.append("17 MiB 413")
    prompt = "word " * 20000
    status, _, payload = server.request("POST", "/v1/chat/completions", server.chat_body(prompt, 8))
    expect(status == 400, "a prompt over the context: %d %r" % (status, payload[:300]))
    expect("context" in error_shape(payload)["message"].lower(), "the overflow's message does not say context: %r" % payload[:300])
    seen.append("context overflow 400")
    return ", ".join(seen)


def check_chunked_body(server):
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    raw.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + (b"Authorization: Bearer %s\r\n" % server.key.encode() if server.key else b"") + b"\r\n5\r\nhello\r\n0\r\n\r\n")
    answer = raw.recv(65536)
    raw.close()
    expect(answer.startswith(b"HTTP/1.1 411"), "a chunked request body: %r" % answer[:100])
    return "411"


def check_missing_key(server):
    expect(server.key, "start the server with a key for this check")
    status, _, payload = Server(server.port, None, server.model, server.pid).request("GET", "/v1/models")
    expect(status == 401, "no key: %d" % status)
    error_shape(payload)
    status, _, _ = Server(server.port, None, server.model, server.pid).request("GET", "/v1/models", headers={"x-api-key": server.key})
    expect(status == 200, "the key as x-api-key: %d" % status)
    return "401 without, 200 with x-api-key"


def check_any_name(server):
    body = server.chat_body()
    body["model"] = "claude-3-5-sonnet-latest"
    status, _, payload = server.request("POST", "/v1/chat/completions", body)
    expect(status == 200, "a name only the '*' alias takes: %d %r" % (status, payload[:300]))
    return "200 for a name taken by '*'"


def stream_times(server, results, index):
    connection, response = server.open_stream("Write a short poem about the sea.", 48)
    first = last = None
    chunks = 0
    for payload in data_lines(response):
        if payload == "[DONE]":
            break
        now = time.monotonic()
        first = first or now
        last = now
        chunks += 1
    connection.close()
    results[index] = (response.status, first, last, chunks)


def check_concurrent(server):
    results = [None] * 4
    threads = [threading.Thread(target=stream_times, args=(server, results, i)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expect(all(r and r[0] == 200 and r[3] > 1 for r in results), "not every stream finished: %r" % results)
    latest_start = max(r[1] for r in results)
    earliest_end = min(r[2] for r in results)
    expect(latest_start < earliest_end, "the 4 streams did not overlap: %r" % results)
    return "4 streams, all active at once for %.2f s" % (earliest_end - latest_start)


def check_disconnect(server):
    began = time.monotonic()
    status, _, _ = server.request("POST", "/v1/chat/completions", dict(server.chat_body(LONG_PROMPT, 300)))
    whole = time.monotonic() - began
    expect(status == 200, "the long answer alone: %d" % status)
    connection, response = server.open_stream()
    lines = data_lines(response)
    for _ in range(3):
        next(lines)
    connection.sock.shutdown(socket.SHUT_RDWR)
    connection.close()
    began = time.monotonic()
    connection, response = server.open_stream("Say hello.", 8)
    expect(response.status == 200, "the request after the disconnect: %d" % response.status)
    next(data_lines(response))
    first = time.monotonic() - began
    connection.close()
    expect(first < whole / 2, "the next request's first token took %.2f s; the abandoned answer alone takes %.2f s" % (first, whole))
    return "first token after %.2f s; the whole abandoned answer takes %.2f s" % (first, whole)


def check_queue(server):
    running, response = server.open_stream()
    next(data_lines(response))
    waiting = server.connection()
    waiting.request("POST", "/v1/chat/completions", body=json.dumps(server.chat_body(LONG_PROMPT, 300, True)).encode(),
                    headers=server.headers())
    time.sleep(0.5)
    status, headers, payload = server.request("POST", "/v1/chat/completions", server.chat_body())
    for connection in [running, waiting]:
        connection.close()
    expect(status == 429, "a request past maxQueue: %d %r" % (status, payload[:200]))
    expect("Retry-After" in headers, "no Retry-After on the 429: %r" % headers)
    error_shape(payload)
    return "429 with Retry-After %s" % headers["Retry-After"]


def check_sigterm(server):
    connection, response = server.open_stream("Write a short story about a fox.", 64)
    lines = data_lines(response)
    next(lines)
    os.kill(server.pid, signal.SIGTERM)
    rest = list(lines)
    connection.close()
    expect(rest and rest[-1] == "[DONE]", "the stream in flight did not end with [DONE]: %r" % rest[-3:])
    chunks = [json.loads(line) for line in rest[:-1]]
    errors = [chunk for chunk in chunks if "error" in chunk]
    expect(not errors, "the stream in flight ended in an error: %r" % errors[:1])
    # 64 tokens of a story: it ends at its length (the model's own end of text would be "stop").
    reasons = [choice.get("finish_reason") for chunk in chunks for choice in chunk.get("choices", []) if choice.get("finish_reason")]
    expect(reasons in (["length"], ["stop"]), "the stream in flight finished with %r" % reasons)
    return "the stream ended with finish_reason %s and [DONE] after %d more events" % (reasons[0], len(rest))


def check_flood(server):
    before = server.rss_kib()
    bad = [b"GET / HTTP/1.1\r\nHost", b"\xff\xfe\r\n\r\n", b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5\r\n\r\n{\"a\xff",
           b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
           b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 12\r\n\r\n{\"messages\":", b"BREW /pot HTTP/3.0\r\n\r\n"]
    for round in range(1000):
        raw = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        raw.sendall(bad[round % len(bad)])
        raw.shutdown(socket.SHUT_WR)
        try:
            while raw.recv(65536):
                pass
        except OSError:
            pass
        raw.close()
    status, _, _ = server.request("GET", "/v1/models")
    after = server.rss_kib()
    expect(status == 200, "after 1000 bad requests: %d" % status)
    expect(after < before + 20 * 1024, "memory grew from %d to %d KiB" % (before, after))
    return "still answering; RSS %d -> %d KiB" % (before, after)


def check_ping(server):
    connection, response = server.open_stream("Summarize this text. " + "The quick brown fox jumps over the lazy dog. " * 300, 8)
    first = response.readline().decode().rstrip("\r\n")
    connection.close()
    expect(response.status == 200 and first == ": ping", "the first line while a long prompt is evaluated: %r" % first)
    return "': ping' before the first token"


def check_crash_early(server):
    status, _, payload = server.request("POST", "/v1/chat/completions", server.chat_body())
    expect(status == 200, "an engine lost before its first token was not tried again: %d %r" % (status, payload[:300]))
    return "200 after the engine was lost before its first token"


def check_crash_late(server):
    for attempt in range(2):
        connection, response = server.open_stream("Hello", 16)
        events = list(data_lines(response))
        connection.close()
        expect(response.status == 200 and len(events) >= 3, "attempt %d: %d %r" % (attempt, response.status, events))
        expect(events[-1] == "[DONE]" and "error" in json.loads(events[-2]), "attempt %d did not end with an error event: %r" % (attempt, events[-3:]))
        expect(any(json.loads(e).get("choices") for e in events[:-2]), "attempt %d had no chunk before the error: %r" % (attempt, events))
    return "chunks, then an error event and [DONE], twice (a new engine each time)"


def check_default_model(server):
    body = server.chat_body()
    del body["model"]
    status, _, payload = server.request("POST", "/v1/chat/completions", body)
    expect(status == 200, "a request without a model: %d %r" % (status, payload[:300]))
    model = json.loads(payload)["model"]
    expect(model == server.model, "a request without a model was answered by %r, not the default %r" % (model, server.model))
    return "answered by the default, %s" % model


def check_no_cors(server):
    status, headers, _ = server.request("GET", "/v1/models", headers={"Origin": "http://evil.example"})
    leaked = [name for name in headers if name.lower().startswith("access-control-")]
    expect(status == 403 and not leaked, "another origin: %d, CORS headers %r" % (status, leaked))
    status, headers, _ = server.request("OPTIONS", "/v1/chat/completions",
                                        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    leaked = [name for name in headers if name.lower().startswith("access-control-")]
    expect(status >= 400 and not leaked, "a preflight was answered %d with %r" % (status, leaked))
    return "403 without Access-Control-* headers; a preflight gets %d" % status


def check_unavailable(server):
    body = server.chat_body()
    body["model"] = "missing"
    status, _, payload = server.request("POST", "/v1/chat/completions", body)
    error = error_shape(payload)
    expect(status == 503 and error["code"] == "model_unavailable", "a backend that cannot start: %d %r" % (status, payload[:300]))
    return "503 model_unavailable: %s" % error["message"][:80]


def check_only_served(server):
    status, _, payload = server.request("GET", "/v1/models")
    ids = [entry["id"] for entry in json.loads(payload)["data"]]
    expect(status == 200 and ids == [server.model], "GET /v1/models lists %r, not only %r" % (ids, server.model))
    body = server.chat_body()
    body["model"] = "other"
    status, _, payload = server.request("POST", "/v1/chat/completions", body)
    expect(status == 404, "a configured backend left out of --backends: %d" % status)
    return "only %s listed; the other backend is 404" % server.model


ADD_TOOL = {"type": "function", "function": {"name": "add", "description": "Add three integers.", "parameters": {
    "type": "object", "required": ["a", "b", "c"],
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}}}}


def check_cut_call(server):
    """A forced call cut by max_tokens leaves no markup in the content of any dialect."""
    user = [{"role": "user", "content": "Add 2, 6 and 5."}]
    seen = []

    def post(path, body):
        status, _, payload = server.request("POST", path, body)
        expect(status == 200, "%s: %d %r" % (path, status, payload[:300]))
        expect(b"<tool_call" not in payload, "%s leaked call markup: %r" % (path, payload[:400]))
        seen.append(path)
        return json.loads(payload)

    chat = {"model": server.model, "messages": user, "tools": [ADD_TOOL], "tool_choice": "required",
            "max_tokens": 8, "temperature": 0}
    choice = post("/v1/chat/completions", chat)["choices"][0]
    expect(choice["finish_reason"] == "length" and not choice["message"].get("tool_calls"),
           "chat: finish %r, calls %r" % (choice["finish_reason"], choice["message"].get("tool_calls")))
    status, _, payload = server.request("POST", "/v1/chat/completions", dict(chat, stream=True))
    expect(status == 200 and b"<tool_call" not in payload and b'"length"' in payload,
           "streamed chat: %d %r" % (status, payload[-600:]))
    seen.append("stream")
    answer = post("/v1/responses", {"model": server.model, "input": user, "tool_choice": "required", "max_output_tokens": 16,
                                    "tools": [dict(ADD_TOOL["function"], type="function")], "temperature": 0})
    expect(answer["status"] == "incomplete" and all(item["type"] != "function_call" for item in answer["output"]),
           "responses: %r" % answer)
    message = post("/v1/messages", {"model": server.model, "messages": user, "max_tokens": 8, "tool_choice": {"type": "any"},
                                    "tools": [{"name": "add", "description": "Add three integers.",
                                               "input_schema": ADD_TOOL["function"]["parameters"]}]})
    expect(message["stop_reason"] == "max_tokens" and all(block["type"] != "tool_use" for block in message["content"]),
           "messages: %r" % message)
    reply = post("/api/chat", {"model": server.model, "messages": user, "tools": [ADD_TOOL], "stream": False,
                               "options": {"num_predict": 8, "temperature": 0}})
    expect(not reply["message"].get("tool_calls"), "ollama: %r" % reply)
    return "no markup, no call: %s" % ", ".join(seen)


CHECKS = {"cut-call": check_cut_call, "health": check_health, "errors": check_errors, "chunked-body": check_chunked_body, "missing-key": check_missing_key,
          "any-name": check_any_name, "concurrent": check_concurrent, "disconnect": check_disconnect, "queue": check_queue,
          "sigterm": check_sigterm, "flood": check_flood, "ping": check_ping, "crash-early": check_crash_early,
          "crash-late": check_crash_late, "default-model": check_default_model, "no-cors": check_no_cors,
          "unavailable": check_unavailable, "only-served": check_only_served}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key")
    parser.add_argument("--model", default="llama")
    parser.add_argument("--pid", type=int, default=0)
    parser.add_argument("checks", nargs="+", choices=sorted(CHECKS))
    arguments = parser.parse_args()
    server = Server(arguments.port, arguments.key, arguments.model, arguments.pid)
    run_each(CHECKS, arguments.checks, server)


if __name__ == "__main__":
    main()
