#!/usr/bin/env python3
"""Checks of the models a `loopl serve` loads and unloads: their state in `/v1/models`, the load
and unload endpoints, the memory an unload frees, and an unload refused while a request runs.

    models_check.py --port PORT --pid PID [--file NAME=PATH]... [--folder DIR] [--hold FILE] [--loopl BINARY] CHECK...

Prints `ok NAME: detail` or `FAIL NAME: why` per check; exits 1 when one failed.
"""

import argparse
import http.client
import json
import os
import subprocess
import threading
import time

from client_checks import expect, run_each


class Server:
    def __init__(self, arguments):
        self.port, self.pid, self.hold, self.folder = arguments.port, arguments.pid, arguments.hold, arguments.folder
        self.loopl = arguments.loopl
        self.files = dict(entry.split("=", 1) for entry in arguments.file or [])

    def request(self, method, path, body=None, raw=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        connection.request(method, path, body=payload, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        text = response.read()
        connection.close()
        return response.status, json.loads(text) if text else None

    def entry(self, name):
        status, body = self.request("GET", "/v1/models/" + name)
        expect(status == 200, "GET /v1/models/%s: %d %r" % (name, status, body))
        return body

    def states(self):
        status, body = self.request("GET", "/v1/models")
        expect(status == 200, "GET /v1/models: %d" % status)
        return {entry["id"]: entry.get("state") for entry in body["data"]}

    def chat(self, model, max_tokens=2):
        return self.request("POST", "/v1/chat/completions", {"model": model, "max_tokens": max_tokens, "temperature": 0,
                                                             "messages": [{"role": "user", "content": "Say hello."}]})

    def stream(self, model, max_tokens):
        """A streamed chat on `model` that has begun: its connection and response."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        connection.request("POST", "/v1/chat/completions", body=json.dumps({
            "model": model, "stream": True, "max_tokens": max_tokens, "temperature": 0,
            "messages": [{"role": "user", "content": "Count from one to twenty in words."}]}).encode(),
            headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        expect(response.status == 200, "the stream: %d" % response.status)
        return connection, response

    def rss(self):
        """The server's resident memory in bytes."""
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")


def check_lifecycle(server):
    """Both models start unloaded with their kind and size; a request loads one, which an unload
    closes (the RSS falls by about its size); a load loads the other; unknown ids are 404."""
    names = sorted(server.files)
    expect(all(server.states()[name] == "unloaded" for name in names), "not unloaded at first: %r" % server.states())
    for name in names:
        entry = server.entry(name)
        expect(entry["kind"] == "llama" and entry["size"] == os.path.getsize(server.files[name]), "entry of %s: %r" % (name, entry))
    first, second = names
    status, body = server.chat(first)
    expect(status == 200, "a chat on %s: %d %r" % (first, status, body))
    expect(server.entry(first)["state"] == "loaded", "after a request: %r" % server.entry(first))
    loaded = server.rss()
    status, body = server.request("POST", "/loopl/v1/models/%s/unload" % first)
    expect(status == 200 and body["state"] == "unloaded", "unload: %d %r" % (status, body))
    size = os.path.getsize(server.files[first])
    deadline = time.monotonic() + 60  # the allocator may hand memory back a moment later
    while loaded - server.rss() <= size // 2:
        expect(time.monotonic() < deadline, "the RSS fell %d bytes, from %d, for a model of %d" % (loaded - server.rss(), loaded, size))
        time.sleep(0.2)
    unloaded = server.rss()
    status, body = server.request("POST", "/loopl/v1/models/%s/load" % second, {})
    expect(status == 200 and body["state"] == "loaded" and body["id"] == second, "load: %d %r" % (status, body))
    states = server.states()
    expect((states[first], states[second]) == ("unloaded", "loaded"), "states: %r" % states)
    status, _ = server.request("POST", "/loopl/v1/models/nothing/unload")
    expect(status == 404, "an unknown id's unload: %d" % status)
    status, _ = server.request("POST", "/loopl/v1/models/%s/load" % second, raw=b"[]")
    expect(status == 400, "a load whose body is not an object: %d" % status)
    status, body = server.chat(first)
    expect(status == 200 and server.entry(first)["state"] == "loaded", "a request after an unload: %d %r" % (status, body))
    return "RSS %.0f MiB loaded, %.0f MiB after unloading a %.0f MiB model" % (loaded / 2**20, unloaded / 2**20, size / 2**20)


def check_unload_busy(server):
    """An unload while a request holds its place is 409; once it ends, the unload succeeds."""
    results = {}
    thread = threading.Thread(target=lambda: results.update(chat=server.chat("held")), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while server.entry("held")["state"] != "loaded" or not running(server, "held"):
            expect(time.monotonic() < deadline, "the held request never ran")
            time.sleep(0.05)
        status, body = server.request("POST", "/loopl/v1/models/held/unload", {})
        expect(status == 409 and body["error"]["code"] == "model_busy", "an unload while a request runs: %d %r" % (status, body))
        expect(server.entry("held")["state"] == "loaded", "the refused unload changed the state")
    finally:
        open(server.hold, "w").close()
    thread.join(120)
    expect(results.get("chat", (0,))[0] == 200, "the held request: %r" % (results.get("chat"),))
    status, body = server.request("POST", "/loopl/v1/models/held/unload")
    expect(status == 200 and body["state"] == "unloaded", "the unload once idle: %d %r" % (status, body))
    return "409 while in flight, 200 once idle"


def check_keep_alive(server):
    """A request's keep_alive of 1 s unloads its model once idle; Ollama's keep_alive 0 with no
    prompt unloads at once."""
    model = sorted(server.files)[-1]
    status, body = server.request("POST", "/v1/chat/completions", {
        "model": model, "max_tokens": 2, "keep_alive": "1s", "messages": [{"role": "user", "content": "Hi."}]})
    expect(status == 200, "a chat with keep_alive: %d %r" % (status, body))
    deadline = time.monotonic() + 60
    while server.entry(model)["state"] != "unloaded":
        expect(time.monotonic() < deadline, "still %r a minute after a keep_alive of 1 s" % server.entry(model)["state"])
        time.sleep(0.2)
    status, body = server.request("POST", "/api/generate", {"model": model})
    expect(status == 200 and body["done_reason"] == "load" and server.entry(model)["state"] == "loaded", "Ollama's load: %r" % body)
    status, body = server.request("GET", "/api/ps")
    listed = [entry for entry in body["models"] if entry["name"] == model + ":latest"]
    expect(status == 200 and len(listed) == 1 and listed[0]["expires_at"][:4] < "2100",
           "Ollama's ps after a load with the folder's 5 minutes: %r" % body)
    status, body = server.request("POST", "/api/generate", {"model": model, "keep_alive": 0})
    expect(status == 200 and body["done_reason"] == "unload", "Ollama's unload: %d %r" % (status, body))
    expect(server.entry(model)["state"] == "unloaded", "after Ollama's unload: %r" % server.entry(model))
    status, body = server.request("POST", "/v1/chat/completions", {"model": model, "keep_alive": "soon", "messages": []})
    expect(status == 400, "a keep_alive that is no duration: %d" % status)
    return "unloaded after keep_alive 1s; /api/ps expires %s; Ollama's keep_alive 0 unloads" % listed[0]["expires_at"]


def check_folder(server):
    """A bad file is listed as failed with a sentence; a file added to the folder is listed, and
    one removed is not, each within a generous bound."""
    bad = server.entry("bad")
    expect(bad["state"] == "failed" and "GGUF" in bad.get("error", ""), "the bad file: %r" % bad)
    added = os.path.join(server.folder, "added.gguf")
    os.symlink(server.files[sorted(server.files)[0]], added)
    try:
        wait_for(lambda: "added" in server.states(), "the added file")
    finally:
        os.remove(added)
    wait_for(lambda: "added" not in server.states(), "the removed file")
    return "bad.gguf failed: %s; added.gguf came and went" % bad["error"][:60]


def check_alternate(server):
    """With maxLoaded 1, each request loads its model and unloads the other."""
    names = sorted(server.files)
    for model in names + names:
        status, body = server.chat(model)
        expect(status == 200, "a chat on %s: %d %r" % (model, status, body))
        states = server.states()
        expect([states[name] for name in names] == ["loaded" if name == model else "unloaded" for name in names],
               "after a request on %s: %r" % (model, states))
    return "%s and %s took turns" % tuple(names)


def check_stream_kept(server):
    """A request for the other model while a stream runs waits for it: the stream ends whole."""
    first, second = sorted(server.files)
    connection, response = server.stream(first, 48)
    lines = [response.fp.readline()]
    results = {}
    other = threading.Thread(target=lambda: results.update(chat=server.chat(second)), daemon=True)
    other.start()
    while lines[-1] and not lines[-1].startswith(b"data: [DONE]"):
        lines.append(response.fp.readline())
    connection.close()
    text = b"".join(lines)
    expect(b"[DONE]" in text and b'"error"' not in text, "the stream was cut: %r" % text[-300:])
    other.join(300)
    expect(results.get("chat", (0,))[0] == 200, "the other model's request: %r" % (results.get("chat"),))
    states = server.states()
    expect((states[first], states[second]) == ("unloaded", "loaded"), "after both: %r" % states)
    return "%d stream lines whole; %s loaded after it" % (len(lines), second)


def check_ps(server):
    """`loopl ps` lists the loaded model alone, with its memory, idle time and keep-alive, and a
    request in flight on it while a stream runs; /metrics has the models' gauges."""
    first, second = sorted(server.files)
    status, body = server.request("POST", "/loopl/v1/models/%s/load" % first, {})
    expect(status == 200 and server.states()[second] == "unloaded", "loading %s alone: %d %r" % (first, status, body))

    def ps(*flags):
        done = subprocess.run([server.loopl, "ps", "--url", "http://127.0.0.1:%d" % server.port] + list(flags),
                              capture_output=True, text=True, timeout=120)
        expect(done.returncode == 0, "loopl ps %s: %d %s" % (" ".join(flags), done.returncode, done.stderr))
        return done.stdout

    listed = json.loads(ps("--json"))["models"]
    expect([entry["id"] for entry in listed] == [first], "loopl ps --json lists %r" % listed)
    entry = listed[0]
    expect(entry["state"] == "loaded" and entry["kind"] == "llama" and entry["memory"] > entry["size"] > 0
           and entry["in_flight"] == 0 and entry["idle_seconds"] >= 0, "the loaded model: %r" % entry)
    expect(0 < entry["expires_at"] - time.time() <= 300, "the folder's keep-alive of 5 minutes: %r" % entry)
    gauges = metrics(server)
    expect(gauges.get("loopl_models_loaded") == 1 and gauges.get('loopl_model_loaded{model="%s"}' % first) == 1
           and gauges.get('loopl_model_loaded{model="%s"}' % second) == 0
           and gauges.get('loopl_model_memory_bytes{model="%s"}' % first) == entry["memory"]
           and gauges.get('loopl_model_memory_bytes{model="%s"}' % second) == 0
           and gauges.get('loopl_model_loads_total{model="%s"}' % second, 0) >= 2
           and gauges.get('loopl_model_unloads_total{model="%s"}' % second, 0) >= 2,
           "the models' gauges in /metrics: %r" % {name: value for name, value in gauges.items() if "model" in name and "loopl_model" in name})
    table = ps().splitlines()
    expect(len(table) == 2 and table[0].split()[:3] == ["NAME", "KIND", "STATE"] and table[1].split()[:3] == [first, "llama", "loaded"]
           and " min" in table[1].split("MiB")[-1], "the table: %r" % table)
    connection, response = server.stream(first, 32)
    response.fp.readline()
    busy = json.loads(ps("--json"))["models"][0]
    while response.fp.readline():
        pass
    connection.close()
    expect(busy["in_flight"] == 1 and busy["idle_seconds"] is None and busy["expires_at"] is None, "while a stream runs: %r" % busy)
    return "%s: %s; busy while streaming" % (first, " ".join(table[1].split()))


def check_resume(server):
    """With the prompt cache on, the next turn of a conversation after its model is unloaded and
    loaded again loads the conversation's state, its answer included: more of its prompt is
    cached than the whole first turn's prompt."""
    model = sorted(server.files)[-1]
    system = "You are a terse assistant (session %s). " % os.urandom(8).hex() + "Answer in one short sentence. " * 40
    turn = [{"role": "system", "content": system}, {"role": "user", "content": "Say hello."}]
    status, body = server.request("POST", "/v1/chat/completions", {"model": model, "max_tokens": 8, "temperature": 0, "messages": turn})
    expect(status == 200, "the first turn: %d %r" % (status, body))
    first = body["usage"]["prompt_tokens"]
    turn += [{"role": "assistant", "content": body["choices"][0]["message"]["content"]}, {"role": "user", "content": "And goodbye?"}]
    status, body = server.request("POST", "/loopl/v1/models/%s/unload" % model, {})
    expect(status == 200 and body["state"] == "unloaded", "the unload: %d %r" % (status, body))
    status, body = server.request("POST", "/v1/chat/completions", {"model": model, "max_tokens": 8, "temperature": 0, "messages": turn})
    expect(status == 200, "the next turn: %d %r" % (status, body))
    cached = body["usage"].get("prompt_tokens_details", {}).get("cached_tokens", 0)
    expect(cached > first, "the next turn after a reload had %d of %d prompt tokens cached; the first turn's prompt was %d"
           % (cached, body["usage"]["prompt_tokens"], first))
    return "%d of %d prompt tokens cached after a reload (the first turn's prompt: %d)" % (cached, body["usage"]["prompt_tokens"], first)


def metrics(server):
    """The samples of `/metrics` by name and labels."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line and not line.startswith("#")}


def wait_for(condition, what, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        expect(time.monotonic() < deadline, "%s: not seen in %d s" % (what, seconds))
        time.sleep(0.2)


def running(server, model):
    """Whether `loopl_requests_in_flight` of `model` is above 0."""
    return metrics(server).get('loopl_requests_in_flight{model="%s"}' % model, 0) > 0


CHECKS = {"lifecycle": check_lifecycle, "folder": check_folder, "alternate": check_alternate, "stream-kept": check_stream_kept, "keep-alive": check_keep_alive, "unload-busy": check_unload_busy, "ps": check_ps, "resume": check_resume}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--file", action="append", metavar="NAME=PATH")
    parser.add_argument("--hold")
    parser.add_argument("--folder")
    parser.add_argument("--loopl")
    parser.add_argument("checks", nargs="+", choices=sorted(CHECKS))
    arguments = parser.parse_args()
    run_each(CHECKS, arguments.checks, Server(arguments))


if __name__ == "__main__":
    main()
