#!/usr/bin/env python3
"""Reference worker for Loopl's stdio protocol, version 1 (docs/stdio-protocol.md).

Standard library only. It replays scripted turns (text chunks, tool calls, metrics) from a JSON
file, and can misbehave on demand, once per fault the host must survive:

    python3 worker.py [--script FILE] [--delay-ms N] [--notify] [--fault MODE] [--fault-after N] [--fault-once FILE]

Start here to wrap a Python runtime (MLX, transformers): replace `ScriptedRuntime.turn` with
calls into the runtime, and keep the framing, the cancellation and the error shapes.
"""

import argparse
import json
import os
import queue
import sys
import threading
import time

PROTOCOL_VERSION = 1
MAX_LINE = 16 * 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
LOOPL_ERROR = -32000
REQUEST_CANCELLED = -32800

FAULTS = [
    "exit-at-start",  # exits before answering initialize
    "crash",          # exits after --fault-after events of a turn
    "non-json",       # writes a line that is not JSON
    "non-jsonrpc",    # writes JSON that is not a JSON-RPC 2.0 message
    "unknown-id",     # sends an event for a request id that does not exist
    "response-to-nothing",  # answers a request that was never sent
    "long-line",      # writes a line over 16 MiB
    "after-result",   # sends an event after the request's result
    "non-utf8",       # writes bytes that are not UTF-8
    "stall",          # stops writing mid-stream, but keeps running
    "stderr-flood",   # writes 8 MiB of logs to stderr in each turn (harmless: the host must drain it)
]

DEFAULT_SCRIPT = {
    "name": "python reference worker",
    "version": "1.0",
    "contextMax": 2048,
    "turns": [
        {"chunks": ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]},
    ],
}


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Output:
    """Writes one message per line to standard output; safe from several threads."""

    def __init__(self):
        self.lock = threading.Lock()

    def raw(self, data):
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def send(self, message):
        message = dict(message, jsonrpc="2.0")
        self.raw((json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))

    def result(self, request_id, result):
        self.send({"id": request_id, "result": result})

    def error(self, request_id, code, message, data=None):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"id": request_id, "error": error})

    def event(self, request_id, params):
        self.send({"method": "event", "params": dict(params, id=request_id)})


class Fault:
    """The misbehaviour asked for on the command line, at most once when --fault-once is given."""

    def __init__(self, mode, after, once_file):
        self.mode = mode
        self.after = after
        self.once_file = once_file

    def armed(self, mode):
        if self.mode != mode:
            return False
        if self.once_file:
            if os.path.exists(self.once_file):
                return False
            with open(self.once_file, "w") as marker:
                marker.write(mode + "\n")
        return True


class Cancelled(Exception):
    pass


class ScriptedRuntime:
    """Replays the script's turns in order, cycling; honours maxTokens, stop strings and context size."""

    def __init__(self, script, delay):
        self.script = script
        self.delay = delay
        self.count = 0

    def turn(self, messages, tools, options, emit, cancelled):
        turns = self.script.get("turns") or DEFAULT_SCRIPT["turns"]
        turn = turns[self.count % len(turns)]
        self.count += 1
        prompt_tokens = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
        context_max = self.script.get("contextMax", 2048)
        if prompt_tokens >= context_max:
            raise LooplError("context_overflow",
                             "The prompt (%d tokens) does not fit in the context (%d tokens)." % (prompt_tokens, context_max))
        chunks = list(turn.get("chunks", []))
        max_tokens = options.get("maxTokens")
        if options.get("ignoreEndOfGeneration") and max_tokens and chunks:
            chunks = [chunks[i % len(chunks)] for i in range(max_tokens)]
        stop_reason = turn.get("stopReason", "end_turn")
        if max_tokens is not None and len(chunks) > max_tokens:
            chunks = chunks[:max_tokens]
            stop_reason = "max_tokens"
        elif max_tokens is not None and len(chunks) == max_tokens and options.get("ignoreEndOfGeneration"):
            stop_reason = "max_tokens"
        start = time.monotonic()
        first = None
        text = ""
        generated = 0
        for chunk in chunks:
            if cancelled():
                raise Cancelled()
            time.sleep(self.delay)
            combined = text + chunk
            hit = min((combined.find(s) for s in options.get("stop", []) if s and s in combined), default=-1)
            if hit >= 0:
                if hit > len(text):
                    emit({"type": "text", "text": combined[len(text):hit]})
                stop_reason = "stop"
                break
            text = combined
            generated += 1
            first = first or time.monotonic()
            emit({"type": "text", "text": chunk})
        for call in turn.get("toolCalls", []):
            emit({"type": "toolCall", "toolCall": {"id": call.get("id", "call_%08d" % self.count),
                                                   "name": call["name"], "arguments": call.get("arguments", {})}})
            stop_reason = "tool_call"
        elapsed = time.monotonic() - start
        return {
            "promptTokens": prompt_tokens, "cachedPromptTokens": 0, "generatedTokens": generated,
            "ttftMs": ((first or time.monotonic()) - start) * 1000.0,
            "tokensPerSecond": generated / elapsed if elapsed > 0 else 0.0,
            "contextUsed": prompt_tokens + generated, "contextMax": context_max,
            "finished": True, "stopReason": stop_reason, "estimated": True,
        }


class LooplError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Worker:
    def __init__(self, script, runtime, fault, notify=False):
        self.notify = notify
        self.script = script
        self.runtime = runtime
        self.fault = fault
        self.out = Output()
        self.inbox = queue.Queue()
        self.cancel_lock = threading.Lock()
        self.running_id = None
        self.cancelled_ids = set()

    def read_input(self):
        """Reads standard input on its own thread, so $/cancelRequest arrives while a turn runs."""
        for line in sys.stdin.buffer:
            if len(line) > MAX_LINE:
                self.inbox.put(("error", "line over 16 MiB"))
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                self.inbox.put(("error", "not JSON"))
                continue
            if isinstance(message, dict) and message.get("method") == "$/cancelRequest":
                with self.cancel_lock:
                    self.cancelled_ids.add(json.dumps((message.get("params") or {}).get("id")))
                continue
            self.inbox.put(("message", message))
        self.inbox.put(("end", None))

    def serve(self):
        threading.Thread(target=self.read_input, daemon=True).start()
        shutting_down = False
        while True:
            kind, message = self.inbox.get()
            if kind == "end":
                return
            if kind == "error":
                self.out.error(None, PARSE_ERROR, "The line is %s." % message)
                continue
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
                if isinstance(message, dict) and ("result" in message or "error" in message):
                    continue
                self.out.error(message.get("id") if isinstance(message, dict) else None,
                               INVALID_REQUEST, "Not a JSON-RPC 2.0 request.")
                continue
            if "id" not in message:
                continue  # notifications other than $/cancelRequest are ignored
            request_id, method, params = message["id"], message["method"], message.get("params") or {}
            if shutting_down:
                self.out.error(request_id, INVALID_REQUEST, "The worker is shutting down.")
            elif method == "initialize":
                self.initialize(request_id, params)
            elif method == "generate":
                self.generate(request_id, params)
            elif method == "shutdown":
                shutting_down = True
                self.out.result(request_id, None)
            else:
                self.out.error(request_id, METHOD_NOT_FOUND, "Unknown method '%s'." % method)

    def initialize(self, request_id, params):
        if params.get("protocolVersion") != PROTOCOL_VERSION:
            self.out.error(request_id, INVALID_PARAMS, "This worker speaks protocol version 1 only.")
            return
        native = self.script.get("nativeToolCalls", True)
        self.out.result(request_id, {
            "protocolVersion": PROTOCOL_VERSION,
            "name": self.script.get("name", DEFAULT_SCRIPT["name"]),
            "version": self.script.get("version", DEFAULT_SCRIPT["version"]),
            "capabilities": {"nativeToolCalls": native,
                             "toolCallFormat": None if native else self.script.get("toolCallFormat", "hermes"),
                             "cancellation": True},
            "contextMax": self.script.get("contextMax", DEFAULT_SCRIPT["contextMax"]),
        })

    def generate(self, request_id, params):
        messages = params.get("messages")
        if not isinstance(messages, list):
            self.out.error(request_id, INVALID_PARAMS, "generate needs a 'messages' list.")
            return
        options = params.get("options") or {}
        key = json.dumps(request_id)
        fault = self.fault
        sent = [0]

        if fault.armed("stderr-flood"):
            block = ("log line " * 16 + "\n") * 1024
            for _ in range(64):
                sys.stderr.write(block)
            sys.stderr.flush()

        def emit(params):
            if sent[0] == fault.after:
                self.misbehave(request_id)
            self.out.event(request_id, params)
            sent[0] += 1

        def cancelled():
            with self.cancel_lock:
                return key in self.cancelled_ids

        try:
            metrics = self.runtime.turn(messages, params.get("tools") or [], options, emit, cancelled)
        except Cancelled:
            self.out.error(request_id, REQUEST_CANCELLED, "The request was cancelled.")
            return
        except LooplError as error:
            self.out.error(request_id, LOOPL_ERROR, error.message, {"looplCode": error.code})
            return
        finally:
            with self.cancel_lock:
                self.cancelled_ids.discard(key)
        if self.notify:
            self.out.send({"method": "$/log", "params": {"message": "turn done"}})
        self.out.result(request_id, {"metrics": metrics})
        if self.notify:
            self.out.send({"method": "$/log", "params": {"message": "idle"}})
        if fault.armed("after-result"):
            self.out.event(request_id, {"type": "text", "text": "too late"})

    def misbehave(self, request_id):
        """Breaks the protocol in the way --fault asks, in the middle of a turn."""
        fault = self.fault
        if fault.armed("crash"):
            log("crashing mid-stream, as asked")
            os._exit(7)
        elif fault.armed("non-json"):
            self.out.raw(b"this line is not JSON\n")
        elif fault.armed("non-jsonrpc"):
            self.out.raw(b'{"hello": "world"}\n')
        elif fault.armed("unknown-id"):
            self.out.event(987654, {"type": "text", "text": "for nobody"})
        elif fault.armed("response-to-nothing"):
            self.out.result(987654, {"metrics": {}})
        elif fault.armed("long-line"):
            self.out.event(request_id, {"type": "text", "text": "x" * (MAX_LINE + 1024)})
        elif fault.armed("non-utf8"):
            self.out.raw(b'{"jsonrpc":"2.0","method":"event","params":{"id":%s,"type":"text","text":"\xff\xfe"}}\n'
                         % json.dumps(request_id).encode())
        elif fault.armed("stall"):
            log("stalling, as asked")
            time.sleep(3600)


def main():
    parser = argparse.ArgumentParser(description="Reference worker for Loopl's stdio protocol.")
    parser.add_argument("--script", help="a JSON file: {name, version, contextMax, nativeToolCalls, "
                                         "toolCallFormat, turns: [{chunks, toolCalls, stopReason}]}")
    parser.add_argument("--delay-ms", type=float, default=10, help="pause before each chunk (default 10)")
    parser.add_argument("--fault", choices=FAULTS, help="misbehave in this way")
    parser.add_argument("--fault-after", type=int, default=1, help="events of a turn before misbehaving (default 1)")
    parser.add_argument("--notify", action="store_true",
                        help="send a $/log notification before and after each turn (hosts must ignore them)")
    parser.add_argument("--fault-once", metavar="FILE",
                        help="misbehave only while FILE does not exist, and create it (so a restarted worker behaves)")
    args = parser.parse_args()

    script = DEFAULT_SCRIPT
    if args.script:
        with open(args.script, encoding="utf-8") as file:
            script = json.load(file)
    fault = Fault(args.fault, args.fault_after, args.fault_once)
    if fault.armed("exit-at-start"):
        log("exiting at start, as asked")
        sys.exit(3)
    Worker(script, ScriptedRuntime(script, args.delay_ms / 1000.0), fault, args.notify).serve()


if __name__ == "__main__":
    main()
