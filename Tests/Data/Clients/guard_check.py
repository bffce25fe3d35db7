#!/usr/bin/env python3
"""What `loopl serve` does with the requests a web page can make it receive: a name rebound to this
machine (DNS rebinding), a page of another site, a body the browser sends without asking first,
and the headers on its answers. Standard library only; raw HTTP, so that every header is the
check's own.

    guard_check.py --port PORT [--key KEY] [--model NAME] [--sessions-dir DIR] [--allowed NAME]
                   [--origin ORIGIN] CHECK...

Prints `ok NAME: detail` or `FAIL NAME: why` per check; exits 1 when one failed.
"""

import argparse
import http.client
import json
import os
import socket

from client_checks import expect, run_each

HEADERS = {"content-security-policy", "x-content-type-options", "referrer-policy"}


class Server:
    def __init__(self, arguments):
        self.port, self.key, self.model = arguments.port, arguments.key, arguments.model
        self.sessions, self.allowed, self.origin = arguments.sessions_dir, arguments.allowed, arguments.origin
        self.own = "127.0.0.1:%d" % self.port

    def request(self, method, path, body=None, headers=None, host=None, key=True):
        """Sends one request with exactly these headers (Host too) and returns status, headers, JSON or bytes."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        sent = {"Host": host or self.own}
        if key and self.key:
            sent["Authorization"] = "Bearer " + self.key
        sent.update(headers or {})
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        if data is not None:
            sent["Content-Length"] = str(len(data))
        for name, value in sent.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders(data)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        try:
            payload = json.loads(payload)
        except ValueError:
            pass
        return response.status, {name.lower(): value for name, value in response.getheaders()}, payload

    def chat_body(self):
        return {"model": self.model, "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 8}

    def requests_counted(self):
        """The sum of loopl_requests_total: the requests that reached a model."""
        status, _, payload = self.request("GET", "/metrics")
        expect(status == 200, "GET /metrics: %d" % status)
        text = payload.decode() if isinstance(payload, bytes) else json.dumps(payload)
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("loopl_requests_total{"))


def message(payload):
    """The error's message, in OpenAI's shape or Anthropic's."""
    expect(isinstance(payload, dict) and isinstance(payload.get("error"), dict), "not a JSON error: %r" % (payload,))
    return payload["error"]["message"]


# Endpoints of each kind: what a page would read, start, or approve.
READS = [("GET", "/v1/models"), ("GET", "/loopl/v1/sessions"), ("GET", "/loopl/v1/settings"), ("GET", "/"), ("GET", "/health")]
WRITES = [("POST", "/v1/chat/completions"), ("POST", "/loopl/v1/runs"), ("POST", "/loopl/v1/runs/r1/approvals/c1"),
          ("POST", "/v1/messages"), ("POST", "/v1/responses"), ("DELETE", "/loopl/v1/sessions/s1")]


def check_hosts(server):
    for host in ["rebind.evil.example:%d" % server.port, "rebind.evil.example", "localhost:%d" % (server.port + 1),
                 "127.0.0.1", "127.0.0.1.evil.example:%d" % server.port, "[::2]:%d" % server.port, "localhost:%d@evil" % server.port]:
        for method, path in READS + WRITES:
            body = server.chat_body() if method == "POST" else None
            status, headers, payload = server.request(method, path, body, {"Content-Type": "application/json"}, host=host)
            expect(status == 421, "%s %s with Host %s: %d" % (method, path, host, status))
            expect("serve.allowedHosts" in message(payload), "the 421 does not name serve.allowedHosts: %r" % payload)
    status, _, payload = server.request("GET", "/v1/models", host=None, headers={"Host": None})
    expect(status == 400, "an HTTP/1.1 request without a Host: %d %r" % (status, payload))
    status, _, _ = server.request("GET", "http://rebind.evil.example:%d/v1/models" % server.port)
    expect(status == 421, "an absolute-form target naming another host: %d" % status)
    for host in ["localhost:%d" % server.port, "127.0.0.1:%d" % server.port, "LOCALHOST:%d" % server.port, "[::1]:%d" % server.port]:
        status, _, _ = server.request("GET", "/v1/models", host=host)
        expect(status == 200, "Host %s: %d" % (host, status))
    return "421 naming serve.allowedHosts for 7 foreign names on %d endpoints; its own names 200" % len(READS + WRITES)


def check_allowed_hosts(server):
    expect(server.allowed, "give --allowed NAME, a name in serve.allowedHosts")
    for host in [server.allowed, server.allowed + ":443", server.allowed + ":%d" % server.port]:
        status, _, _ = server.request("GET", "/v1/models", host=host)
        expect(status == 200, "Host %s, listed in serve.allowedHosts: %d" % (host, status))
    status, _, _ = server.request("GET", "/v1/models", host="other." + server.allowed)
    expect(status == 421, "Host other.%s: %d" % (server.allowed, status))
    return "%s with any port or none 200, other.%s 421" % (server.allowed, server.allowed)


def check_any_host(server):
    status, _, _ = server.request("GET", "/v1/models", host="rebind.evil.example:%d" % server.port)
    expect(status == 200, "with allowedHosts [\"*\"], any name: %d" % status)
    status, _, _ = server.request("POST", "/v1/chat/completions", server.chat_body(), host="rebind.evil.example:%d" % server.port,
                                  headers={"Content-Type": "application/json", "Origin": "http://rebind.evil.example:%d" % server.port})
    expect(status == 403, "with allowedHosts [\"*\"], the rebound page's own origin: %d" % status)
    return "any Host 200; the rebound page's Origin still 403"


def refused_browsers(server):
    """Headers a page of another site makes the browser send."""
    other = ["http://evil.example", "https://evil.example", "null", "http://127.0.0.1:%d" % (server.port + 1),
             "http://localhost", "app://desktop", "vscode-webview://abc", "file://", "http://127.0.0.1:%d/x" % server.port]
    return ([{"Sec-Fetch-Site": site} for site in ["cross-site", "same-site", "Cross-Site"]]
            + [{"Origin": origin} for origin in other if origin != server.origin]
            + [{"Origin": "http://%s" % server.own, "Sec-Fetch-Site": "cross-site"}])


def check_browsers(server):
    counted = server.requests_counted()
    for headers in refused_browsers(server):
        for method, path in READS + WRITES + [("OPTIONS", "/v1/chat/completions")]:
            sent = dict(headers, **{"Content-Type": "text/plain"})
            if method == "OPTIONS":
                sent["Access-Control-Request-Method"] = "POST"
            body = json.dumps(server.chat_body()).encode() if method == "POST" else None
            # Without the key: the refusal comes before the key is asked for.
            status, answer, payload = server.request(method, path, body, sent, key=False)
            expect(status == 403, "%s %s with %r: %d %r" % (method, path, headers, status, payload))
            message(payload)
            expect(not any(name.startswith("access-control-") for name in answer), "CORS headers for %r: %r" % (headers, answer))
    expect(server.requests_counted() == counted, "a refused request reached a model")
    passed = [{"Sec-Fetch-Site": "same-origin", "Origin": "http://" + server.own}, {"Sec-Fetch-Site": "none"},
              {"Origin": "http://localhost:%d" % server.port}, {}]
    for headers in passed:
        status, _, payload = server.request("GET", "/v1/models", headers=headers)
        expect(status == 200, "GET /v1/models with %r: %d %r" % (headers, status, payload))
        status, _, payload = server.request("POST", "/v1/chat/completions", server.chat_body(),
                                            dict(headers, **{"Content-Type": "application/json"}))
        expect(status == 200, "POST /v1/chat/completions with %r: %d %r" % (headers, status, payload))
    return "%d kinds of foreign page refused with 403 on %d endpoints, before the key; own origin, none and no header 200" % (
        len(refused_browsers(server)), len(READS + WRITES) + 1)


def check_listed_origin(server):
    expect(server.origin, "give --origin ORIGIN, listed in serve.corsOrigins")
    headers = {"Origin": server.origin, "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
    status, answer, payload = server.request("POST", "/v1/chat/completions", server.chat_body(), headers)
    expect(status == 200 and answer.get("access-control-allow-origin") == server.origin, "the listed origin: %d %r" % (status, answer))
    return "%s, listed, 200 with Access-Control-Allow-Origin" % server.origin


def check_json_bodies(server):
    counted = server.requests_counted()
    body = json.dumps(server.chat_body()).encode()
    run = json.dumps({"model": server.model, "messages": [{"role": "user", "content": "Say hello."}], "maxTokens": 8}).encode()
    sent = [{"Content-Type": "text/plain"}, {"Content-Type": "text/plain;charset=UTF-8"}, {"Content-Type": "application/x-www-form-urlencoded"},
            {"Content-Type": "multipart/form-data; boundary=x"}, {}, {"Content-Type": "application/jsonx"}, {"Content-Type": ""}]
    paths = ["/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages", "/v1/messages/count_tokens",
             "/loopl/v1/runs", "/loopl/v1/runs/r1/cancel", "/loopl/v1/runs/r1/approvals/c1", "/v1/models", "/nowhere"]
    for headers in sent:
        for path in paths:
            status, _, payload = server.request("POST", path, run if path.startswith("/loopl") else body, headers)
            expect(status == 415, "POST %s with %r: %d %r" % (path, headers, status, payload))
            expect("Content-Type: application/json" in message(payload), "the 415 does not name the header: %r" % payload)
            if path.startswith("/v1/messages"):
                expect(payload.get("type") == "error", "not in Anthropic's shape: %r" % payload)
    expect(server.requests_counted() == counted, "a refused body reached a model")
    if server.sessions:
        saved = os.listdir(server.sessions) if os.path.isdir(server.sessions) else []
        expect(not saved, "a refused run saved %r" % saved)
    for content_type in ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"]:
        status, _, payload = server.request("POST", "/v1/chat/completions", body, {"Content-Type": content_type})
        expect(status == 200, "POST with %s: %d %r" % (content_type, status, payload))
    status, _, payload = server.request("POST", "/loopl/v1/runs/r1/cancel")
    expect(status == 404, "a POST without a body needs no type: %d %r" % (status, payload))
    return "%d types refused with 415 on %d endpoints, nothing run or saved; application/json (with charset) 200" % (len(sent), len(paths))


def check_headers(server):
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    raw.sendall(b"GET /v1/models HTTP/1.1\r\nHost: " + server.own.encode() + b"\r\nContent-Length: x\r\n\r\n")
    head = raw.recv(65536).split(b"\r\n\r\n")[0].decode().lower()
    raw.close()
    expect(head.startswith("http/1.1 400"), "a malformed request: %r" % head[:40])
    answers = {"the server's own 400": {line.split(":", 1)[0] for line in head.split("\r\n")[1:]}}
    for name, (method, path, headers) in {"the page": ("GET", "/", {}), "app.js": ("GET", "/app.js", {}),
                                          "a model list": ("GET", "/v1/models", {}), "a 404": ("GET", "/nowhere", {}),
                                          "a 421": ("GET", "/", {"Host": "rebind.evil.example"}),
                                          "a 403": ("GET", "/", {"Origin": "null"}), "a 405": ("PUT", "/v1/models", {})}.items():
        status, answer, _ = server.request(method, path, headers=headers)
        answers[name] = set(answer)
        if name == "the page":
            policy = answer.get("content-security-policy", "")
            for part in ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"]:
                expect(part in policy, "the page's Content-Security-Policy lacks %s: %r" % (part, policy))
            expect("unsafe-inline" not in policy and "*" not in policy, "the policy allows too much: %r" % policy)
            expect(answer.get("x-content-type-options") == "nosniff", "x-content-type-options %r" % answer.get("x-content-type-options"))
            expect(answer.get("referrer-policy") == "no-referrer", "referrer-policy %r" % answer.get("referrer-policy"))
    for name, names in answers.items():
        expect(HEADERS <= names, "%s lacks %s" % (name, ", ".join(sorted(HEADERS - names))))
    return "CSP, nosniff and no-referrer on " + ", ".join(answers)


CHECKS = {"hosts": check_hosts, "allowed-hosts": check_allowed_hosts, "any-host": check_any_host,
          "browsers": check_browsers, "listed-origin": check_listed_origin, "json-bodies": check_json_bodies, "headers": check_headers}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key")
    parser.add_argument("--model", default="python")
    parser.add_argument("--sessions-dir", help="the server's serve.sessionsDir, which a refused run must leave empty")
    parser.add_argument("--allowed", help="a name in the server's serve.allowedHosts")
    parser.add_argument("--origin", help="an origin in the server's serve.corsOrigins")
    parser.add_argument("checks", nargs="+", choices=sorted(CHECKS))
    arguments = parser.parse_args()
    run_each(CHECKS, arguments.checks, Server(arguments))


if __name__ == "__main__":
    main()
