#!/usr/bin/env python3
"""Checks the Ollama endpoints of `loopl serve` with the real `ollama` Python client.

    ollama_check.py --base-url http://127.0.0.1:PORT --api-key KEY --model NAME CHECK...

Runs each named CHECK in order and prints one line for it, `ok NAME: <detail>` or
`FAIL NAME: <why>`. Exits 0 when every check passed, 1 when one failed, 2 for a usage error.
`--base-url` is the server's root (the client adds /api/...). Run it with the Python of
scripts/sdk-clients (LOOPL_SDK_PYTHON), which has the pinned clients.

The checks are meant for a small model: temperature 0, a fixed seed and few tokens. `tools`
expects the scripted `hermes` worker of Tests/Data/Clients (serve-workers.json), `think` the
`thinking` one; `curl` posts with `curl -d` as Ollama's API document does.
"""

import json
import subprocess

import httpx
import ollama

import client_checks
from client_checks import CheckFailed, expect, short

GREETING = [{"role": "user", "content": "Say hello in one short sentence."}]
OPTIONS = {"temperature": 0, "seed": 7, "num_predict": 16}
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city's name."}},
                   "required": ["city"]}}}
WEATHER_QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
PERSON = {"type": "object", "properties": {"age": {"type": "integer"}, "available": {"type": "boolean"}},
          "required": ["age", "available"]}
COUNTERS = ["total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"]


def check_final(part, what):
    """Checks the last object of an answer: done, its reason and its counters."""
    expect(part.done is True, "%s is not done: %r" % (what, part))
    expect(part.done_reason in ("stop", "length"), "%s's done_reason is %r" % (what, part.done_reason))
    missing = [name for name in COUNTERS if not isinstance(getattr(part, name), int)]
    expect(not missing, "%s lacks %s" % (what, ", ".join(missing)))
    expect(part.prompt_eval_count > 0 and part.eval_count > 0 and part.total_duration > 0,
           "%s counts %d prompt and %d generated tokens in %d ns" % (what, part.prompt_eval_count, part.eval_count, part.total_duration))
    return "%s, %d+%d tokens" % (part.done_reason, part.prompt_eval_count, part.eval_count)


def check_parts(parts, what):
    """Checks a stream's objects: only the last is done; returns it."""
    expect(parts, "%s sent no object" % what)
    expect(all(part.done is False for part in parts[:-1]), "%s has a done object before its last" % what)
    return parts[-1]


class Checks:
    """The checks, one method each, against one server."""

    def __init__(self, base_url, api_key, model, timeout):
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": "Bearer " + api_key} if api_key not in ("", "none") else {}
        self.model = model
        self.timeout = timeout
        self.client = ollama.Client(host=self.base_url, headers=self.headers, timeout=timeout)

    def chat(self, **fields):
        return self.client.chat(**{"model": self.model, "options": OPTIONS, **fields})

    def generate(self, **fields):
        return self.client.generate(**{"model": self.model, "options": OPTIONS, **fields})

    def raw(self, method, path, **arguments):
        """A request with plain httpx, outside the client, with the key."""
        headers = {**self.headers, **arguments.pop("headers", {})}
        with httpx.Client(timeout=self.timeout) as client:
            return client.request(method, self.base_url + path, headers=headers, **arguments)

    def refused(self, status, ask):
        """Runs `ask`, which must fail with `status`; returns the error's text."""
        try:
            ask()
        except ollama.ResponseError as error:
            expect(error.status_code == status, "status %d, not %d: %s" % (error.status_code, status, error.error))
            expect(isinstance(error.error, str) and error.error, "no error text")
            return error.error
        raise CheckFailed("accepted, not refused with %d" % status)

    def chat_check(self):
        answer = self.chat(messages=GREETING, stream=False)
        expect(answer.model == self.model, "model is %r, not the %r asked for" % (answer.model, self.model))
        expect(answer.message.role == "assistant" and answer.message.content, "the message is %r" % answer.message)
        expect(answer.created_at and answer.created_at.endswith("Z"), "created_at is %r" % answer.created_at)
        return "%s (%s)" % (short(answer.message.content), check_final(answer, "the answer"))

    def chat_stream(self):
        parts = list(self.chat(messages=GREETING, stream=True))
        last = check_parts(parts, "the stream")
        streamed = "".join(part.message.content or "" for part in parts)
        expect(last.message.content == "", "the last object has content %r" % last.message.content)
        whole = self.chat(messages=GREETING, stream=False)
        expect(streamed == whole.message.content, "streamed %s but not streamed %s" % (short(streamed), short(whole.message.content)))
        return "%s in %d objects (%s)" % (short(streamed), len(parts), check_final(last, "the last object"))

    def num_predict(self):
        answer = self.chat(messages=GREETING, stream=False, options={**OPTIONS, "num_predict": 3})
        expect(answer.done_reason == "length" and answer.eval_count <= 3, "%s after %d tokens" % (answer.done_reason, answer.eval_count))
        stopped = self.chat(messages=GREETING, stream=False, options={**OPTIONS, "num_predict": 24, "stop": ["o"]})
        expect("o" not in stopped.message.content, "the stop string is in %s" % short(stopped.message.content))
        return "length after %d tokens; stop string kept out of %s" % (answer.eval_count, short(stopped.message.content))

    def format_schema(self):
        question = [{"role": "user", "content": "Ollama is 22 years old and busy saving the world. Return a JSON object with the age and availability."}]
        answer = self.chat(messages=question, stream=False, format=PERSON, options={**OPTIONS, "num_predict": 64})
        person = json.loads(answer.message.content)
        expect(isinstance(person.get("age"), int) and isinstance(person.get("available"), bool), "the answer is %r" % person)
        # Under the compact grammar the default model answers the question above in json mode with an
        # array that counts up until num_predict ends it: this one it closes.
        asked = [{"role": "user", "content": "Ollama is 22 years old and busy saving the world. "
                  "Return a JSON object with the age and whether Ollama is available."}]
        mode = self.chat(messages=asked, stream=False, format="json", options={**OPTIONS, "num_predict": 64})
        expect(isinstance(json.loads(mode.message.content), dict), "format json gave %s" % short(mode.message.content))
        return "%s; json mode %s" % (json.dumps(person), short(mode.message.content))

    def generate_check(self):
        answer = self.generate(prompt="Why is the sky blue?", stream=False)
        expect(answer.response, "the response is empty")
        final = check_final(answer, "the answer")
        parts = list(self.generate(prompt="Why is the sky blue?", stream=True))
        last = check_parts(parts, "the stream")
        streamed = "".join(part.response or "" for part in parts)
        expect(streamed == answer.response, "streamed %s but not streamed %s" % (short(streamed), short(answer.response)))
        check_final(last, "the stream's last object")
        return "%s (%s), the same streamed" % (short(answer.response), final)

    def generate_raw(self):
        prompt = "The capital of France is"
        raw = self.generate(prompt=prompt, raw=True, stream=False)
        templated = self.generate(prompt=prompt, stream=False)
        with_system = self.generate(prompt=prompt, system="You are a geography teacher who answers briefly.", stream=False)
        check_final(raw, "the raw answer")
        # The template wraps the prompt in its turns (and this model's adds a default system prompt,
        # which the one given replaces), so only the raw prompt is its own few tokens.
        expect(raw.prompt_eval_count < 8 and raw.prompt_eval_count < min(templated.prompt_eval_count, with_system.prompt_eval_count)
               and templated.prompt_eval_count != with_system.prompt_eval_count,
               "prompt tokens: raw %d, templated %d, with a system prompt %d" % (
                   raw.prompt_eval_count, templated.prompt_eval_count, with_system.prompt_eval_count))
        template = "{{ if .System }}{{ .System }}\n{{ end }}Q: {{ .Prompt }}\nA:{{ .Response }} (cut here)"
        system = "Answer in one word."
        mine = self.generate(prompt=prompt, system=system, template=template, stream=False)
        written = self.generate(prompt="%s\nQ: %s\nA:" % (system, prompt), raw=True, stream=False)
        expect((mine.prompt_eval_count, mine.response) == (written.prompt_eval_count, written.response),
               "a template gave %d tokens and %s, the prompt it renders %d and %s" % (
                   mine.prompt_eval_count, short(mine.response), written.prompt_eval_count, short(written.response)))
        return "%s raw (%d prompt tokens), templated %d, with system %d; a template's prompt is %d tokens" % (
            short(raw.response), raw.prompt_eval_count, templated.prompt_eval_count, with_system.prompt_eval_count, mine.prompt_eval_count)

    def load(self):
        chat = self.client.chat(model=self.model, messages=[])
        generate = self.client.generate(model=self.model)
        expect(chat.done and chat.done_reason == "load" and generate.done_reason == "load", "%r %r" % (chat, generate))
        return "done_reason load for an empty chat and prompt"

    def tool_result(self):
        history = WEATHER_QUESTION + [
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
            {"role": "tool", "content": "18 degrees and sunny", "tool_name": "get_weather"}]
        answer = self.chat(messages=history, tools=[WEATHER_TOOL], stream=False, options={**OPTIONS, "num_predict": 24})
        expect(answer.message.content or answer.message.tool_calls, "no answer after the tool result: %r" % answer.message)
        return "%s after the result" % short(answer.message.content)

    def tools(self):
        answer = self.chat(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], stream=False)
        calls = answer.message.tool_calls or []
        expect(len(calls) == 1, "tool_calls is %r" % calls)
        call = calls[0].function
        expect(call.name == "get_weather" and call.arguments == {"city": "Paris"}, "the call is %r" % call)
        raw = self.raw("POST", "/api/chat", json={"model": self.model, "messages": WEATHER_QUESTION, "tools": [WEATHER_TOOL],
                                                  "stream": False}).json()
        wire = raw["message"]["tool_calls"][0]
        expect(isinstance(wire["function"]["arguments"], dict) and wire["function"]["index"] == 0 and wire.get("id"),
               "the call on the wire is %r" % wire)
        parts = list(self.chat(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], stream=True))
        streamed = [call for part in parts for call in (part.message.tool_calls or [])]
        expect(len(streamed) == 1 and streamed[0].function.arguments == {"city": "Paris"}, "streamed calls %r" % streamed)
        check_parts(parts, "the stream")
        return "get_weather(%s), streamed and not" % json.dumps(dict(call.arguments))

    def think(self):
        answer = self.chat(messages=GREETING, think=True, stream=False)
        expect(answer.message.thinking == "I should greet." and answer.message.content == "Hello!", "the message is %r" % answer.message)
        parts = list(self.chat(messages=GREETING, think=True, stream=True))
        thinking = "".join(part.message.thinking or "" for part in parts)
        content = "".join(part.message.content or "" for part in parts)
        expect(thinking == "I should greet." and content == "Hello!", "streamed %r then %r" % (thinking, content))
        generated = self.generate(prompt="Hi", think=True, stream=False)
        expect(generated.thinking == "I should greet." and generated.response == "Hello!", "generate gave %r" % generated)
        return "thought %s, said %s" % (short(answer.message.thinking), short(answer.message.content))

    def tags(self):
        models = {entry.model: entry for entry in self.client.list().models}
        name = self.model + ":latest"
        expect(name in models and "gpt-4o-mini:latest" in models, "the list is %r" % sorted(models))
        entry = models[name]
        expect(entry.details.format == "gguf" and entry.details.family == "llama" and entry.size > 0 and entry.digest,
               "the entry is %r" % entry)
        expect(entry.modified_at is not None and entry.details.quantization_level, "the entry is %r" % entry)
        return "%s (%s, %s, %d bytes)" % (", ".join(sorted(models)), entry.details.family, entry.details.quantization_level, entry.size)

    def show(self):
        shown = self.client.show(self.model)
        expect("im_start" in (shown.template or ""), "the template is %s" % short(shown.template))
        expect(shown.modelinfo.get("general.architecture") == "llama", "model_info is %r" % sorted(shown.modelinfo)[:8])
        expect(shown.modelinfo.get("tokenizer.ggml.tokens") == [], "tokens are listed without verbose")
        expect("num_ctx 8192" in (shown.parameters or "") and "completion" in shown.capabilities, "%r %r" % (shown.parameters, shown.capabilities))
        expect(self.client.show(self.model + ":latest").template == shown.template, "NAME:latest shows another model")
        verbose = self.raw("POST", "/api/show", json={"model": self.model, "verbose": True}).json()
        expect(len(verbose["model_info"]["tokenizer.ggml.tokens"]) > 1000, "verbose lists no tokens")
        return "%d keys of model_info, %s, %s" % (len(shown.modelinfo), shown.parameters, shown.capabilities)

    def ps(self):
        self.chat(messages=GREETING, stream=False, options={**OPTIONS, "num_predict": 1})
        running = {entry.model: entry for entry in self.client.ps().models}
        entry = running.get(self.model + ":latest")
        expect(entry is not None and entry.context_length == 8192 and entry.expires_at is not None, "ps lists %r" % running)
        return "%s (context %d)" % (", ".join(running), entry.context_length)

    def version(self):
        response = self.raw("GET", "/api/version")
        expect(response.status_code == 200 and response.json() == {"version": "0.32.15"}, "%d %s" % (response.status_code, response.text))
        return response.text

    def latest(self):
        answer = self.chat(model=self.model + ":latest", messages=GREETING, stream=False, options={**OPTIONS, "num_predict": 2})
        expect(answer.model == self.model + ":latest" and answer.message.content, "the answer is %r" % answer)
        return "%s answered as %s" % (short(answer.message.content), answer.model)

    def errors(self):
        unknown = self.refused(404, lambda: self.client.chat(model="no-such-model", messages=GREETING))
        expect(unknown.startswith("model 'no-such-model' not found"), "the 404 is not Ollama's: %s" % unknown)
        bad = self.refused(400, lambda: self.chat(messages=GREETING, stream=False, options={"temperature": "hot"}))
        expect("options.temperature" in bad, "the 400 does not name the option: %s" % bad)
        image = self.refused(400, lambda: self.chat(messages=[{**GREETING[0], "images": ["iVBORw0KGgo="]}], stream=False))
        expect("images" in image, "the 400 does not name the images: %s" % image)
        self.refused(400, lambda: self.generate(prompt="x", suffix="y", stream=False))
        self.refused(400, lambda: self.generate(prompt="x", template="{{ range .Messages }}{{ end }}", stream=False))
        self.refused(400, lambda: self.chat(messages=GREETING, think="lots", stream=False))
        pulled = self.refused(501, lambda: self.client.pull(self.model))
        self.refused(501, lambda: self.client.delete(self.model))
        nowhere = self.raw("GET", "/api/nowhere")
        expect(nowhere.status_code == 404 and "error" in nowhere.json(), "%d %s" % (nowhere.status_code, nowhere.text))
        empty = self.raw("POST", "/api/chat", content=b"")
        expect(empty.status_code == 400 and empty.json() == {"error": "missing request body"}, "%d %s" % (empty.status_code, empty.text))
        nameless = self.raw("POST", "/api/chat", json={"messages": GREETING})
        expect(nameless.status_code == 400 and nameless.json() == {"error": "model is required"}, "%d %s" % (nameless.status_code, nameless.text))
        return "404 %s; 501 %s" % (short(unknown, 60), short(pulled, 40))

    def root(self):
        plain = self.raw("GET", "/")
        expect(plain.status_code == 200 and plain.text == "Ollama is running" and plain.headers["content-type"].startswith("text/plain"),
               "GET / is %d %s" % (plain.status_code, short(plain.text)))
        head = self.raw("HEAD", "/")
        expect(head.status_code == 200 and not head.content, "HEAD / is %d" % head.status_code)
        page = self.raw("GET", "/", headers={"Accept": "text/html,application/xhtml+xml"})
        expect(page.status_code == 200 and "<html" in page.text.lower(), "a browser gets %s" % short(page.text))
        return "'Ollama is running', and the page for a browser"

    def browsers(self):
        """A page's form post, which these paths would read as JSON, is stopped by the browser checks."""
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        body = json.dumps({"model": self.model, "messages": GREETING, "stream": False}).encode()
        for path in ["/api/chat", "/api/generate"]:
            for name, headers in {"an origin": {"Origin": "https://evil.example"}, "cross-site": {"Sec-Fetch-Site": "cross-site"},
                                  "null": {"Origin": "null"}}.items():
                answer = self.raw("POST", path, content=body, headers={**form, **headers})
                expect(answer.status_code == 403 and isinstance(answer.json().get("error"), str),
                       "%s with %s: %d %s" % (path, name, answer.status_code, short(answer.text, 80)))
        rebound = self.raw("POST", "/api/chat", content=body, headers={**form, "Host": "rebind.evil.example"})
        expect(rebound.status_code == 421 and isinstance(rebound.json().get("error"), str), "a rebound name: %d" % rebound.status_code)
        return "403 for 3 kinds of page on /api/chat and /api/generate, 421 for a rebound name"

    def curl(self):
        """Posts as Ollama's document does: `curl URL -d '{...}'`, no JSON content type."""
        def post(path, body):
            command = ["curl", "-sS", self.base_url + path, "-d", json.dumps(body)]
            for name, value in self.headers.items():
                command += ["-H", "%s: %s" % (name, value)]
            return subprocess.run(command, capture_output=True, text=True, timeout=self.timeout, check=True).stdout

        lines = [json.loads(line) for line in post("/api/chat", {"model": self.model, "messages": GREETING, "options": OPTIONS}).splitlines()]
        expect(len(lines) > 1 and lines[-1]["done"] is True and all(not line["done"] for line in lines[:-1]), "the stream is %r" % lines[-1:])
        whole = json.loads(post("/api/generate", {"model": self.model, "prompt": "Why is the sky blue?", "stream": False, "options": OPTIONS}))
        expect(whole["done"] and whole["response"], "generate gave %r" % whole)
        shown = json.loads(post("/api/show", {"model": self.model}))
        expect(shown["model_info"]["general.architecture"] == "llama", "show gave %s" % short(json.dumps(shown)))
        return "chat in %d lines, generate %s, show" % (len(lines), short(whole["response"]))


CHECKS = {
    "chat": Checks.chat_check,
    "chat-stream": Checks.chat_stream,
    "num-predict": Checks.num_predict,
    "format-schema": Checks.format_schema,
    "generate": Checks.generate_check,
    "generate-raw": Checks.generate_raw,
    "load": Checks.load,
    "tool-result": Checks.tool_result,
    "tools": Checks.tools,
    "think": Checks.think,
    "tags": Checks.tags,
    "show": Checks.show,
    "ps": Checks.ps,
    "version": Checks.version,
    "latest": Checks.latest,
    "errors": Checks.errors,
    "root": Checks.root,
    "curl": Checks.curl,
    "browsers": Checks.browsers,
}


def main():
    client_checks.main("Checks loopl serve's Ollama endpoints with the ollama client.", CHECKS,
                       lambda args: Checks(args.base_url, args.api_key, args.model, args.timeout),
                       (), "http://127.0.0.1:8080")


if __name__ == "__main__":
    main()
