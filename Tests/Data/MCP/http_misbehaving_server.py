#!/usr/bin/env python3
"""A Streamable HTTP MCP server for Loopl's tests that misbehaves on purpose.

Usage: http_misbehaving_server.py MODE. It listens on a free port of 127.0.0.1 and prints
"PORT <n>" on stdout. Modes:
  refuse        prints a port where nothing listens, and exits.
  unauthorized  answers every request 401 unless it carries "Authorization: Bearer sesame";
                with it, it behaves as "good".
  notjson       answers initialize with a 200 JSON body that is not JSON.
  stall         takes every request and never answers.
  drop          answers initialize, then 404 for its session on every later request.
  forget        a good server that forgets its session once, after the first tools/call; like the
                SDK's servers, it keeps each session's GET stream open (sending a comment now and then).
  huge          answers initialize with a JSON body of 17 MiB.
  elsewhere     an HTTP+SSE server (POSTs to the endpoint get 405) whose endpoint event names
                another origin.
  good          a well-behaved server with one tool, echo.
Every POST's method, every GET and DELETE, with its Mcp-Session-Id, MCP-Protocol-Version and Authorization headers go
to stderr, one line each.
"""
import json
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
state = {"sessions": set(), "calls": 0, "forgot": False}
lock = threading.Lock()
TOOLS = [{"name": "echo", "description": "Says the text back.",
          "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def rpc(self, id_, result, headers=None):
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode()
        self.answer(200, body, {"Content-Type": "application/json", **(headers or {})})

    def do_DELETE(self):
        sys.stderr.write(f"DELETE session={self.headers.get('Mcp-Session-Id')}\n")
        sys.stderr.flush()
        self.answer(200)

    def do_GET(self):
        if MODE == "elsewhere":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"event: endpoint\ndata: http://127.0.0.2:9/messages?session_id=1\n\n")
            self.wfile.flush()
            time.sleep(30)
            return
        sys.stderr.write(f"GET session={self.headers.get('Mcp-Session-Id')} accept={self.headers.get('Accept')}\n")
        sys.stderr.flush()
        if MODE == "forget":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for _ in range(600):
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            return
        self.answer(405, b"", {"Allow": "POST"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length) or b"{}")
        method = message.get("method")
        session = self.headers.get("Mcp-Session-Id")
        sys.stderr.write(f"{method} session={session} version={self.headers.get('MCP-Protocol-Version')} "
                         f"auth={self.headers.get('Authorization')}\n")
        sys.stderr.flush()
        if MODE == "stall":
            time.sleep(3600)
            return
        if MODE == "elsewhere":
            self.answer(405, b"Method Not Allowed", {"Allow": "GET"})
            return
        if MODE == "unauthorized" and self.headers.get("Authorization") != "Bearer sesame":
            self.answer(401, b'{"error": "invalid_token"}', {"Content-Type": "application/json"})
            return
        if method == "initialize":
            if MODE == "huge":
                padding = "x" * (17 * 1024 * 1024)
                self.rpc(message["id"], {"protocolVersion": "2025-06-18", "padding": padding})
                return
            if MODE == "notjson":
                self.answer(200, b"<html>Welcome to the proxy</html>", {"Content-Type": "application/json"})
                return
            new = uuid.uuid4().hex
            with lock:
                state["sessions"].add(new)
            self.rpc(message["id"], {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                     "serverInfo": {"name": "misbehaving", "version": "1"}}, {"Mcp-Session-Id": new})
            return
        if method != "initialize" and "id" in message and session is None:
            self.answer(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Missing session ID"}}',
                        {"Content-Type": "application/json"})
            return
        with lock:
            known = session in state["sessions"] and MODE != "drop"
        if not known:
            self.answer(404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
                        {"Content-Type": "application/json"})
            return
        if "id" not in message:
            self.answer(202)
            return
        if method == "tools/list":
            self.rpc(message["id"], {"tools": TOOLS})
        elif method == "tools/call":
            text = message["params"]["arguments"].get("text", "")
            with lock:
                state["calls"] += 1
                if MODE == "forget" and not state["forgot"]:
                    state["forgot"] = True
                    state["sessions"].clear()
            self.rpc(message["id"], {"content": [{"type": "text", "text": text}]})
        elif method == "ping":
            self.rpc(message["id"], {})
        else:
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32601, "message": f"no method {method}"}}).encode()
            self.answer(200, body, {"Content-Type": "application/json"})


def main():
    if MODE == "refuse":
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        print(f"PORT {port}", flush=True)
        return
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(f"PORT {httpd.server_address[1]}", flush=True)
    httpd.serve_forever()


main()
