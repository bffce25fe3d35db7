#!/usr/bin/env python3
"""Checks of `loopl serve` in operation: raw-prompt completions with the real `openai` SDK,
`/metrics` read with prometheus_client's parser, CORS preflights, and the per-model limit.

    ops_check.py --port PORT [--key KEY] [--model NAME] [--hold FILE] [--origin ORIGIN] CHECK...

Prints `ok NAME: detail` or `FAIL NAME: why` per check; exits 1 when one failed.
"""

import argparse
import http.client
import json
import threading
import time

import openai
from prometheus_client.parser import text_string_to_metric_families

from client_checks import CheckFailed as Failure, expect, run_each

FAMILIES = {
    "loopl_requests": "counter", "loopl_requests_in_flight": "gauge", "loopl_requests_queued": "gauge",
    "loopl_max_concurrent": "gauge", "loopl_max_queue": "gauge", "loopl_prompt_tokens": "counter",
    "loopl_cached_prompt_tokens": "counter", "loopl_generated_tokens": "counter",
    "loopl_time_to_first_token_seconds": "histogram", "loopl_decode_tokens_per_second": "histogram",
    "loopl_engine_restarts": "counter", "loopl_engine_retries": "counter",
}


class Server:
    def __init__(self, arguments):
        self.port, self.key, self.model = arguments.port, arguments.key, arguments.model
        self.hold, self.origin = arguments.hold, arguments.origin
        self.sdk = openai.OpenAI(base_url="http://127.0.0.1:%d/v1" % self.port, api_key=self.key or "none", max_retries=0)

    def request(self, method, path, body=None, headers=None, key=True):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        sent = {"Content-Type": "application/json"}
        if key and self.key:
            sent["Authorization"] = "Bearer " + self.key
        sent.update(headers or {})
        connection.request(method, path, body=None if body is None else json.dumps(body).encode(), headers=sent)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, payload

    def chat(self, max_tokens=4):
        return self.request("POST", "/v1/chat/completions", {"model": self.model, "max_tokens": max_tokens, "temperature": 0,
                                                             "messages": [{"role": "user", "content": "Say hello."}]})

    def scrape(self, key=True):
        """The metric families of GET /metrics, parsed by prometheus_client, with every sample by name and labels."""
        status, headers, payload = self.request("GET", "/metrics", key=key)
        expect(status == 200, "GET /metrics: %d %r" % (status, payload[:200]))
        expect(headers.get("content-type", "").startswith("text/plain; version=0.0.4"), "content type %r" % headers.get("content-type"))
        families = {family.name: family for family in text_string_to_metric_families(payload.decode())}
        samples = {}
        for family in families.values():
            for sample in family.samples:
                samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        return families, samples

    def value(self, samples, name, **labels):
        labels.setdefault("model", self.model)
        return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def check_completions(server):
    answer = server.sdk.completions.create(model=server.model, prompt="The capital of France is", max_tokens=8, temperature=0)
    expect(answer.object == "text_completion" and len(answer.choices) == 1, "not one text_completion choice: %r" % answer)
    text = answer.choices[0].text
    expect(isinstance(text, str) and text, "no text: %r" % answer)
    expect(answer.choices[0].finish_reason in ("length", "stop"), "finish_reason %r" % answer.choices[0].finish_reason)
    usage = answer.usage
    expect(0 < usage.completion_tokens <= 8 and usage.total_tokens == usage.prompt_tokens + usage.completion_tokens, "usage %r" % usage)
    # "The capital of France is" is 5 tokens and BOS at most: a chat template would add dozens.
    expect(0 < usage.prompt_tokens <= 7, "the raw prompt was %d tokens: was a chat template applied?" % usage.prompt_tokens)
    listed = server.sdk.completions.create(model=server.model, prompt=["The capital of France is"], max_tokens=8, temperature=0)
    expect(listed.choices[0].text == text, "a list of one prompt answered %r, the string %r" % (listed.choices[0].text, text))
    try:
        server.sdk.completions.create(model=server.model, prompt="Hi", max_tokens=2, n=2)
        raise Failure("n = 2 was served")
    except openai.BadRequestError as error:
        expect("n" in str(error), "n = 2: %s" % error)
    return "%r (%s), %d prompt tokens" % (text, answer.choices[0].finish_reason, usage.prompt_tokens)


def check_completions_stream(server):
    whole = server.sdk.completions.create(model=server.model, prompt="Once upon a time", max_tokens=12, temperature=0)
    chunks = list(server.sdk.completions.create(model=server.model, prompt="Once upon a time", max_tokens=12, temperature=0,
                                                stream=True, stream_options={"include_usage": True}))
    expect(len(chunks) >= 3, "only %d chunks" % len(chunks))
    expect(len({chunk.id for chunk in chunks}) == 1, "chunks with different ids")
    text = "".join(chunk.choices[0].text for chunk in chunks if chunk.choices)
    expect(text == whole.choices[0].text, "streamed %r, whole %r" % (text, whole.choices[0].text))
    reasons = [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices and chunk.choices[0].finish_reason]
    expect(reasons == [whole.choices[0].finish_reason], "finish reasons %r" % reasons)
    last = chunks[-1]
    expect(last.choices == [] and last.usage and last.usage.completion_tokens == whole.usage.completion_tokens,
           "the last chunk is not the usage: %r" % last)
    return "%d chunks, %r, as the whole answer" % (len(chunks), text)


def check_completions_refused(server):
    status, _, payload = server.request("POST", "/v1/completions", {"model": server.model, "prompt": "Hello", "max_tokens": 4})
    error = json.loads(payload).get("error") or {}
    expect(status == 400 and "raw prompt" in error.get("message", ""), "a messages-only backend: %d %r" % (status, payload[:300]))
    return "400: %s" % error["message"][:90]


def check_metrics(server):
    status, _, _ = server.request("GET", "/metrics", key=False)
    expect(not server.key or status == 401, "GET /metrics without the key: %d" % status)
    families, before = server.scrape()
    for name, kind in FAMILIES.items():
        expect(name in families and families[name].type == kind, "no %s family %s: %r" % (kind, name, sorted(families)))
        expect(families[name].documentation, "%s has no HELP" % name)
    for _ in range(5):
        status, _, payload = server.chat()
        expect(status == 200, "a chat request: %d %r" % (status, payload[:200]))
    _, after = server.scrape()

    def moved(name, **labels):
        return server.value(after, name, **labels) - server.value(before, name, **labels)

    expect(moved("loopl_requests_total", status="200") == 5, "requests moved by %r" % moved("loopl_requests_total", status="200"))
    expect(moved("loopl_time_to_first_token_seconds_count") == 5, "TTFT count moved by %r" % moved("loopl_time_to_first_token_seconds_count"))
    expect(moved("loopl_time_to_first_token_seconds_bucket", le="+Inf") == 5, "the +Inf bucket did not move by 5")
    expect(moved("loopl_generated_tokens_total") >= 5, "generated tokens moved by %r" % moved("loopl_generated_tokens_total"))
    expect(moved("loopl_prompt_tokens_total") > 0, "prompt tokens did not move")
    expect(moved("loopl_decode_tokens_per_second_count") >= 1, "no decode speed was observed")
    expect(server.value(after, "loopl_requests_in_flight") == 0, "requests still in flight")
    return "5 requests counted; %d tokens generated" % moved("loopl_generated_tokens_total")


def check_runs_metrics(server):
    _, before = server.scrape()
    status, _, payload = server.request("POST", "/loopl/v1/runs", {"model": server.model, "maxTokens": 4, "temperature": 0,
                                                                   "messages": [{"role": "user", "content": "Say hello."}]})
    events = [json.loads(line[6:]) for line in payload.decode().splitlines() if line.startswith("data: ")]
    expect(status == 200 and events and events[-1].get("event") == "finished", "an agent run: %d %r" % (status, payload[-300:]))
    _, after = server.scrape()
    moved = server.value(after, "loopl_requests_total", status="200") - server.value(before, "loopl_requests_total", status="200")
    turns = sum(1 for event in events if event.get("event") == "iterationStarted")
    expect(turns >= 1 and moved == turns, "an agent run of %d turns moved the requests by %r" % (turns, moved))
    return "an agent run's %d turn(s) counted as requests" % turns


def check_metrics_public(server):
    server.scrape(key=False)
    status, _, _ = server.request("GET", "/v1/models", key=False)
    expect(status == 401, "the other endpoints still need the key: %d" % status)
    return "200 without the key; /v1/models still 401"


def check_restarts(server):
    _, before = server.scrape()
    status, _, payload = server.chat()
    expect(status == 200, "the request whose engine was lost: %d %r" % (status, payload[:200]))
    _, after = server.scrape()
    for name in ["loopl_engine_restarts_total", "loopl_engine_retries_total"]:
        moved = server.value(after, name) - server.value(before, name)
        expect(moved == 1, "%s moved by %r" % (name, moved))
    return "one engine restart and one retry counted"


def preflight(server, origin):
    return server.request("OPTIONS", "/v1/chat/completions", key=False, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"})


def cors_headers(headers):
    return {name: value for name, value in headers.items() if name.startswith("access-control-")}


def check_cors(server):
    status, headers, _ = preflight(server, server.origin)
    expect(status in (200, 204), "the allowed origin's preflight: %d" % status)
    expect(headers.get("access-control-allow-origin") == server.origin, "allow-origin %r" % headers.get("access-control-allow-origin"))
    expect("POST" in headers.get("access-control-allow-methods", ""), "allow-methods %r" % headers.get("access-control-allow-methods"))
    expect("authorization" in headers.get("access-control-allow-headers", "").lower(), "allow-headers %r" % headers)
    status, headers, _ = server.request("GET", "/v1/models", headers={"Origin": server.origin})
    expect(status == 200 and headers.get("access-control-allow-origin") == server.origin, "the answer to the allowed origin: %d %r" % (status, headers))
    status, headers, _ = preflight(server, "http://other.example")
    expect(status >= 400 and not cors_headers(headers), "another origin's preflight: %d %r" % (status, cors_headers(headers)))
    status, headers, _ = server.request("GET", "/v1/models", headers={"Origin": "http://other.example"})
    expect(status == 403 and not cors_headers(headers), "another origin: %d %r" % (status, cors_headers(headers)))
    return "the allowed origin gets its headers; another gets none (%d)" % status


def check_cors_any(server):
    status, headers, _ = preflight(server, "http://anywhere.example")
    allowed = headers.get("access-control-allow-origin")
    expect(status in (200, 204) and allowed, "a preflight with \"*\" configured: %d %r" % (status, headers))
    if server.key:
        expect(allowed == "http://anywhere.example", "with a key the origin must be named, not %r" % allowed)
    else:
        expect(allowed == "*", "without a key \"*\" is sent, not %r" % allowed)
    return "Access-Control-Allow-Origin: %s" % allowed


def check_limit(server):
    """6 requests at once with maxConcurrent 2 and maxQueue 2, on a worker that holds each turn
    until the hold file exists: 2 run, 2 wait, 2 get 429; then the 4 all finish."""
    results = {}

    def send(index):
        results[index] = server.chat()

    threads = [threading.Thread(target=send, args=(index,), daemon=True) for index in range(4)]
    for thread in threads:
        thread.start()
    try:
        refused = hold_four(server)
    finally:
        open(server.hold, "w").close()  # even after a failure, so that no request stays held
    for thread in threads:
        thread.join(120)
    statuses = sorted(results[index][0] for index in range(4) if index in results)
    expect(statuses == [200] * 4, "the 4 admitted requests ended %r" % statuses)
    _, samples = server.scrape()
    counted = (server.value(samples, "loopl_requests_total", status="200"), server.value(samples, "loopl_requests_total", status="429"))
    expect(counted == (4, 2), "requests_total by status: %r" % (counted,))
    return "2 ran, 2 waited then ran, 2 got 429 (Retry-After %s)" % refused[0][1]["retry-after"]


def hold_four(server):
    """With 4 requests sent to the held worker: waits until 2 run and 2 wait, then sends 2 more,
    which must get 429; returns those answers."""
    deadline = time.monotonic() + 60
    while True:
        _, samples = server.scrape()
        running, waiting = server.value(samples, "loopl_requests_in_flight"), server.value(samples, "loopl_requests_queued")
        if (running, waiting) == (2, 2):
            break
        expect(running <= 2 and time.monotonic() < deadline, "in flight %r and queued %r, not 2 and 2" % (running, waiting))
        time.sleep(0.05)
    expect(server.value(samples, "loopl_max_concurrent") == 2 and server.value(samples, "loopl_max_queue") == 2,
           "the limits shown: %r %r" % (server.value(samples, "loopl_max_concurrent"), server.value(samples, "loopl_max_queue")))
    refused = [server.chat() for _ in range(2)]
    for status, headers, payload in refused:
        expect(status == 429 and headers.get("retry-after"), "a request past the queue: %d %r" % (status, payload[:200]))
        expect(json.loads(payload)["error"]["type"] == "rate_limit_error", "not a rate_limit_error: %r" % payload[:200])
    _, samples = server.scrape()
    expect((server.value(samples, "loopl_requests_in_flight"), server.value(samples, "loopl_requests_queued")) == (2, 2),
           "the 429s changed what runs and waits")
    return refused


CHECKS = {"completions": check_completions, "completions-stream": check_completions_stream,
          "completions-refused": check_completions_refused, "metrics": check_metrics, "metrics-public": check_metrics_public, "runs-metrics": check_runs_metrics,
          "restarts": check_restarts, "cors": check_cors, "cors-any": check_cors_any, "limit": check_limit}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key")
    parser.add_argument("--model", default="llama")
    parser.add_argument("--hold", help="the file whose creation lets the held worker's turns begin")
    parser.add_argument("--origin", default="http://app.example", help="the origin the server allows")
    parser.add_argument("checks", nargs="+", choices=sorted(CHECKS))
    arguments = parser.parse_args()
    server = Server(arguments)
    run_each(CHECKS, arguments.checks, server)


if __name__ == "__main__":
    main()
