#!/usr/bin/env python3
"""Reference worker for Loopl's stdio protocol, versions 1 and 2 (docs/stdio-protocol.md).

Standard library only. It replays scripted turns (thinking, text chunks, tool calls, metrics)
from a JSON file, serves several requests at once on threads of their own, and can misbehave on
demand, once per fault the host must survive:

    python3 worker.py [--script FILE] [--echo] [--delay-ms N] [--concurrency N] [--serial] [--hold FILE]
                      [--protocol 1|2] [--notify] [--fault MODE] [--fault-after N] [--fault-when-running K] [--fault-once FILE]

Start here to wrap a Python runtime (MLX, transformers): replace `ScriptedRuntime.turn` with
calls into the runtime, and keep the framing, the cancellation and the error shapes.
"""

import argparse
import json
import os
import queue
import re
import sys
import threading
import time

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
    "event-flood",    # writes 1 GiB of valid text events for the request, as fast as the pipe takes them
]

DEFAULT_SCRIPT = {
    "name": "python reference worker",
    "version": "1.0",
    "contextMax": 2048,
    "turns": [
        {"chunks": ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]},
    ],
}

# What the scripted model thinks when it is asked to think ("on" or an effort) and its turn
# scripts no thinking.
DEFAULT_THOUGHT = ["Let me", " think", " about", " that", "."]
THINKING_ON = ("on", "low", "medium", "high")


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Output:
    """Writes one message per line to standard output; safe from several threads."""

    def __init__(self, record=None):
        self.lock = threading.Lock()
        self.record = record

    def raw(self, data):
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            if self.record:
                self.record.write(b"> " + data)
                self.record.flush()

    def received(self, line):
        """Writes a line read from standard input to the --record file, when there is one."""
        if self.record:
            with self.lock:
                self.record.write(b"< " + line.rstrip(b"\n") + b"\n")
                self.record.flush()

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

    def freeze(self):
        """Stops every writer, for good (the `stall` fault); the --record file notes `# frozen`."""
        self.lock.acquire()
        if self.record:
            self.record.write(b"# frozen\n")
            self.record.flush()


class Fault:
    """The misbehaviour asked for on the command line, at most once when --fault-once is given."""

    def __init__(self, mode, after, running, once_file):
        self.mode = mode
        self.after = after
        self.running = running
        self.once_file = once_file
        self.lock = threading.Lock()

    def pending(self):
        """Whether the misbehaviour is still to come."""
        return self.mode is not None and not (self.once_file and os.path.exists(self.once_file))

    def armed(self, mode):
        if self.mode != mode:
            return False
        with self.lock:
            if not self.pending():
                return False
            if self.once_file:
                with open(self.once_file, "w") as marker:
                    marker.write(mode + "\n")
            return True


class Cancelled(Exception):
    pass


class LooplError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class ThinkSplitter:
    """Separates `<think>...</think>` in streamed text into thinking and visible parts."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self):
        self.inside = False
        self.pending = ""
        self.after_close = False

    def feed(self, text):
        """The (kind, text) parts of `text` that are certain; a possible tag's start waits."""
        self.pending += text
        parts = []
        while True:
            tag = self.CLOSE if self.inside else self.OPEN
            at = self.pending.find(tag)
            if at < 0:
                keep = next((n for n in range(min(len(tag) - 1, len(self.pending)), 0, -1)
                             if tag.startswith(self.pending[-n:])), 0)
                self._part(parts, self.pending[:len(self.pending) - keep])
                self.pending = self.pending[len(self.pending) - keep:]
                return parts
            self._part(parts, self.pending[:at])
            self.pending = self.pending[at + len(tag):]
            self.inside = not self.inside
            self.after_close = not self.inside

    def flush(self):
        parts = []
        self._part(parts, self.pending)
        self.pending = ""
        return parts

    def _part(self, parts, text):
        if not self.inside and self.after_close:
            text = text.lstrip()  # the blank lines between the thinking and the answer
            self.after_close = not text
        if text:
            parts.append(("reasoning" if self.inside else "text", text))


class ScriptedRuntime:
    """Replays the script's turns in order, cycling; honours maxTokens, stop strings, the context
    size and the reasoning options."""

    def __init__(self, script, delay, echo=False, serial=False, hold=None):
        self.script = script
        self.hold = hold
        self.delay = delay
        self.echo = echo
        self.count = 0
        self.lock = threading.Lock()
        # --serial: one turn at a time, whatever the worker declares (a worker that lies).
        self.serial = threading.Lock() if serial else None

    def next_turn(self):
        turns = self.script.get("turns") or DEFAULT_SCRIPT["turns"]
        with self.lock:
            self.count += 1
            return turns[(self.count - 1) % len(turns)], self.count

    def turn(self, messages, tools, options, emit, cancelled, thinking_events):
        """Streams one turn through `emit`; `thinking_events` is false for a version 1 host or a
        script with `"reasoning": false`, which get thinking markup as text and no scripted thinking."""
        if self.serial:
            with self.serial:
                return self.stream(messages, tools, options, emit, cancelled, thinking_events)
        return self.stream(messages, tools, options, emit, cancelled, thinking_events)

    def stream(self, messages, tools, options, emit, cancelled, thinking_events):
        turn, number = self.next_turn()
        prompt_tokens = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
        context_max = self.script.get("contextMax", 2048)
        if prompt_tokens >= context_max:
            raise LooplError("context_overflow",
                             "The prompt (%d tokens) does not fit in the context (%d tokens)." % (prompt_tokens, context_max))
        setting = options.get("reasoning") or "auto"
        budget = options.get("reasoningBudget")
        thinking = list(turn.get("reasoning", [])) if thinking_events else []
        writes_thinking = "<think>" in "".join(turn.get("chunks", []))
        if thinking_events and not thinking and not writes_thinking and setting in THINKING_ON:
            thinking = DEFAULT_THOUGHT
        if setting == "off":
            thinking = []
        if budget is not None:
            thinking = thinking[:max(budget, 0)]
        chunks = list(turn.get("chunks", []))
        if self.echo:
            last = next((m for m in reversed(messages) if m.get("role") == "user"), {})
            chunks = re.findall(r"\s*\S+", str(last.get("content") or ""))
        max_tokens = options.get("maxTokens")
        if options.get("ignoreEndOfGeneration") and max_tokens and chunks:
            chunks = [chunks[i % len(chunks)] for i in range(max(max_tokens - len(thinking), 0))]
        steps = [("reasoning", piece) for piece in thinking] + [("raw", piece) for piece in chunks]
        stop_reason = turn.get("stopReason", "end_turn")
        if max_tokens is not None and len(steps) > max_tokens:
            steps = steps[:max_tokens]
            stop_reason = "max_tokens"
        elif max_tokens is not None and len(steps) == max_tokens and options.get("ignoreEndOfGeneration"):
            stop_reason = "max_tokens"
        splitter = ThinkSplitter() if thinking_events else None
        shown = {"text": "", "thought": 0, "stopped": False}

        def show(parts):
            """Emits a step's parts: thinking unless it is off or over its budget, text up to a stop string."""
            if any(part == "reasoning" for part, _ in parts) and setting != "off" \
                    and (budget is None or shown["thought"] < budget):
                shown["thought"] += 1
                for part, value in parts:
                    if part == "reasoning":
                        emit({"type": "reasoning", "text": value})
            for part, value in parts:
                if part != "text":
                    continue
                combined = shown["text"] + value
                hit = min((combined.find(s) for s in options.get("stop", []) if s and s in combined), default=-1)
                if hit >= 0:
                    if hit > len(shown["text"]):
                        emit({"type": "text", "text": combined[len(shown["text"]):hit]})
                    shown["stopped"] = True
                    return
                shown["text"] = combined
                emit({"type": "text", "text": value})

        # --hold: each turn waits for the file before its first token (a request that keeps its place).
        while self.hold and not os.path.exists(self.hold):
            if cancelled():
                raise Cancelled()
            time.sleep(0.02)
        start = time.monotonic()
        first = None
        generated = 0
        for kind, piece in steps:
            if cancelled():
                raise Cancelled()
            time.sleep(self.delay)
            generated += 1
            first = first or time.monotonic()
            show([("reasoning", piece)] if kind == "reasoning" else splitter.feed(piece) if splitter else [("text", piece)])
            if shown["stopped"]:
                stop_reason = "stop"
                break
        if splitter and not shown["stopped"]:
            show(splitter.flush())
        for call in turn.get("toolCalls", []):
            emit({"type": "toolCall", "toolCall": {"id": call.get("id", "call_%08d" % number),
                                                   "name": call["name"], "arguments": call.get("arguments", {})}})
            stop_reason = "tool_call"
        elapsed = time.monotonic() - start
        metrics = {
            "promptTokens": prompt_tokens, "cachedPromptTokens": 0, "generatedTokens": generated,
            "ttftMs": ((first or time.monotonic()) - start) * 1000.0,
            "tokensPerSecond": generated / elapsed if elapsed > 0 else 0.0,
            "contextUsed": prompt_tokens + generated, "contextMax": context_max,
            "finished": True, "stopReason": stop_reason, "estimated": True,
        }
        if thinking_events:
            metrics["reasoningTokens"] = shown["thought"]
        return metrics


class Worker:
    def __init__(self, script, runtime, fault, highest=2, concurrency=4, notify=False, record=None):
        self.notify = notify
        self.script = script
        self.runtime = runtime
        self.fault = fault
        self.highest = highest
        self.concurrency = concurrency
        self.version = 1
        self.out = Output(record)
        self.inbox = queue.Queue()
        self.lock = threading.Lock()
        self.running = {}  # request id (as JSON) -> [thread, cancelled]

    def read_input(self):
        """Reads standard input on its own thread, so $/cancelRequest arrives while turns run."""
        for line in sys.stdin.buffer:
            self.out.received(line[:MAX_LINE])
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
                with self.lock:
                    running = self.running.get(json.dumps((message.get("params") or {}).get("id")))
                    if running:
                        running[1] = True
                continue
            self.inbox.put(("message", message))
        self.inbox.put(("end", None))

    def serve(self):
        threading.Thread(target=self.read_input, daemon=True).start()
        shutting_down = False
        while True:
            kind, message = self.inbox.get()
            if kind == "end":
                self.stop_all()
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
                self.stop_all()
                self.out.result(request_id, None)
            else:
                self.out.error(request_id, METHOD_NOT_FOUND, "Unknown method '%s'." % method)

    def stop_all(self):
        """Cancels every turn in flight and waits for their answers."""
        with self.lock:
            running = list(self.running.values())
            for entry in running:
                entry[1] = True
        for thread, _ in running:
            thread.join()

    def initialize(self, request_id, params):
        offered = params.get("protocolVersion")
        # A version 1 worker refuses any other version; a version 2 worker answers the highest
        # version both speak.
        if not isinstance(offered, int) or offered < 1 or (self.highest == 1 and offered != 1):
            self.out.error(request_id, INVALID_PARAMS, "This worker speaks protocol version 1 only." if self.highest == 1
                           else "This worker speaks protocol versions 1 to %d." % self.highest)
            return
        self.version = min(offered, self.highest)
        native = self.script.get("nativeToolCalls", True)
        capabilities = {"nativeToolCalls": native,
                        "toolCallFormat": None if native else self.script.get("toolCallFormat", "hermes"),
                        "cancellation": True}
        if self.version >= 2:
            capabilities.update(reasoning=self.separates_thinking(), concurrentRequests=self.concurrency)
        self.out.result(request_id, {
            "protocolVersion": self.version,
            "name": self.script.get("name", DEFAULT_SCRIPT["name"]),
            "version": self.script.get("version", DEFAULT_SCRIPT["version"]),
            "capabilities": capabilities,
            "contextMax": self.script.get("contextMax", DEFAULT_SCRIPT["contextMax"]),
        })

    def separates_thinking(self):
        """Whether thinking goes out as `reasoning` events: in version 2, unless the script says
        `"reasoning": false` (a text worker that leaves `<think>` markup for the host to lift)."""
        return self.version >= 2 and self.script.get("reasoning", True)

    def generate(self, request_id, params):
        messages = params.get("messages")
        if not isinstance(messages, list):
            self.out.error(request_id, INVALID_PARAMS, "generate needs a 'messages' list.")
            return
        key = json.dumps(request_id)
        capacity = self.concurrency if self.version >= 2 else 1
        with self.lock:
            if key in self.running:
                refusal = "Request %s is already running." % key
            elif len(self.running) >= capacity:
                refusal = ("A request is already running: send one at a time." if capacity == 1 else
                           "%d requests are already running, as many as this worker declared." % capacity)
            else:
                refusal = None
                entry = [None, False]
                entry[0] = threading.Thread(target=self.turn, args=(request_id, key, params, entry), daemon=True)
                self.running[key] = entry
        if refusal:
            self.out.error(request_id, INVALID_REQUEST, refusal)
            return
        entry[0].start()

    def turn(self, request_id, key, params, entry):
        """Runs one generate request on its own thread, to its answer."""
        options = params.get("options") or {}
        fault = self.fault
        sent = [0]

        if fault.armed("stderr-flood"):
            block = ("log line " * 16 + "\n") * 1024
            for _ in range(64):
                sys.stderr.write(block)
            sys.stderr.flush()

        def emit(params):
            if sent[0] == fault.after:
                if fault.pending():
                    self.wait_for_running(fault.running)
                self.misbehave(request_id)
            self.out.event(request_id, params)
            sent[0] += 1

        try:
            metrics = self.runtime.turn(params["messages"], params.get("tools") or [], options, emit,
                                        lambda: entry[1], self.separates_thinking())
            answer = {"id": request_id, "result": {"metrics": metrics}}
        except Cancelled:
            answer = {"id": request_id, "error": {"code": REQUEST_CANCELLED, "message": "The request was cancelled."}}
        except LooplError as error:
            answer = {"id": request_id, "error": {"code": LOOPL_ERROR, "message": error.message,
                                                  "data": {"looplCode": error.code}}}
        except Exception as error:  # a bug in the runtime fails its request, not the worker
            answer = {"id": request_id, "error": {"code": -32603, "message": "The worker failed: %r" % error}}
        # Forget the request first, so a host that sends the next one as soon as it reads this
        # answer finds a place free.
        with self.lock:
            self.running.pop(key, None)
        if self.notify:
            self.out.send({"method": "$/log", "params": {"message": "turn done"}})
        self.out.send(answer)
        if self.notify:
            self.out.send({"method": "$/log", "params": {"message": "idle"}})
        if fault.armed("after-result"):
            self.out.event(request_id, {"type": "text", "text": "too late"})

    def wait_for_running(self, count, timeout=10):
        """Waits, for at most `timeout` seconds, until `count` requests run."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.running) >= count:
                    return
            time.sleep(0.01)

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
        elif fault.armed("event-flood"):
            line = (json.dumps({"jsonrpc": "2.0", "method": "event",
                                "params": {"id": request_id, "type": "text", "text": "x" * 65000}}) + "\n").encode()
            for _ in range((1 << 30) // len(line)):
                self.out.raw(line)
        elif fault.armed("stall"):
            log("stalling, as asked")
            self.out.freeze()
            time.sleep(3600)


def main():
    parser = argparse.ArgumentParser(description="Reference worker for Loopl's stdio protocol.")
    parser.add_argument("--script", help="a JSON file: {name, version, contextMax, nativeToolCalls, "
                                         "toolCallFormat, reasoning, turns: [{reasoning, chunks, toolCalls, stopReason}]}")
    parser.add_argument("--delay-ms", type=float, default=10, help="pause before each chunk (default 10)")
    parser.add_argument("--echo", action="store_true",
                        help="answer with the words of the last user message instead of the script's chunks")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="requests served at once in protocol version 2 (default 4)")
    parser.add_argument("--serial", action="store_true",
                        help="serve one turn at a time while declaring --concurrency (a worker that lies)")
    parser.add_argument("--hold", metavar="FILE",
                        help="begin each turn only once FILE exists (requests hold their places until then)")
    parser.add_argument("--protocol", type=int, choices=[1, 2], default=2,
                        help="the highest protocol version spoken; 1 refuses version 2 as an older worker does")
    parser.add_argument("--fault", choices=FAULTS, help="misbehave in this way")
    parser.add_argument("--fault-after", type=int, default=1, help="events of a turn before misbehaving (default 1)")
    parser.add_argument("--fault-when-running", type=int, default=1, metavar="K",
                        help="before misbehaving, wait (up to 10 s) until K requests run (default 1)")
    parser.add_argument("--notify", action="store_true",
                        help="send a $/log notification before and after each turn (hosts must ignore them)")
    parser.add_argument("--fault-once", metavar="FILE",
                        help="misbehave only while FILE does not exist, and create it (so a restarted worker behaves)")
    parser.add_argument("--record", metavar="FILE",
                        help="append every line read to FILE after '< ' and every line written after '> '")
    args = parser.parse_args()

    script = DEFAULT_SCRIPT
    if args.script:
        with open(args.script, encoding="utf-8") as file:
            script = json.load(file)
    fault = Fault(args.fault, args.fault_after, args.fault_when_running, args.fault_once)
    if fault.armed("exit-at-start"):
        log("exiting at start, as asked")
        sys.exit(3)
    Worker(script, ScriptedRuntime(script, args.delay_ms / 1000.0, args.echo, args.serial, args.hold), fault, args.protocol,
           max(args.concurrency, 1), args.notify, open(args.record, "ab") if args.record else None).serve()


if __name__ == "__main__":
    main()
