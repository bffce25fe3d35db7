#!/usr/bin/env python3
"""Checks an OpenAI-compatible server (`loopl serve`) with the real `openai` Python SDK.

    openai_check.py --base-url http://127.0.0.1:PORT/v1 --api-key KEY --model NAME CHECK...

Runs each named CHECK in order and prints one line for it, `ok NAME: <detail>` or
`FAIL NAME: <why>`. Exits 0 when every check passed, 1 when one failed, 2 for a usage error.
`--api-key none` (or an empty key) talks to a server that asks for no key. Run it with the Python
of scripts/sdk-clients (LOOPL_SDK_PYTHON), which has the pinned SDK.

The checks are meant for a small model: temperature 0, a fixed seed and few tokens. `reasoning`
and `hermes-tools` expect the scripted workers of Tests/Data/Clients (serve-workers.json).
"""

import json
import re

import httpx
import openai

import client_checks
from client_checks import CheckFailed, expect, short

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city's name."}},
                   "required": ["city"]}}}
TIME_TOOL = {"type": "function", "function": {
    "name": "get_time", "description": "The current time in a time zone.",
    "parameters": {"type": "object", "properties": {"timezone": {"type": "string", "description": "An IANA time zone."}},
                   "required": ["timezone"]}}}
WEATHER_QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
GREETING = [{"role": "user", "content": "Say hello in one short sentence."}]
CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "temperature": {"type": "integer"}},
               "required": ["city", "temperature"], "additionalProperties": False}
# The same sampling for every request, so that a streamed and a non-streamed request agree.
SETTINGS = {"temperature": 0, "seed": 7}




def parse_object(arguments, what):
    """The JSON object in a tool call's `arguments` string, or a failure naming `what`."""
    try:
        value = json.loads(arguments)
    except (TypeError, ValueError):
        raise CheckFailed("%s are not JSON: %s" % (what, short(arguments, 120)))
    expect(isinstance(value, dict), "%s are JSON but not an object: %s" % (what, short(arguments, 120)))
    return value


def check_usage(usage, what):
    """Checks the token counts of a response; returns them as `P+C tokens`."""
    expect(usage is not None, "%s has no usage" % what)
    expect(isinstance(usage.prompt_tokens, int) and usage.prompt_tokens > 0,
           "%s: usage.prompt_tokens is %r, not a positive integer" % (what, usage.prompt_tokens))
    expect(isinstance(usage.completion_tokens, int) and usage.completion_tokens > 0,
           "%s: usage.completion_tokens is %r, not a positive integer" % (what, usage.completion_tokens))
    expect(usage.total_tokens == usage.prompt_tokens + usage.completion_tokens,
           "%s: usage.total_tokens %r is not prompt_tokens + completion_tokens (%d + %d)"
           % (what, usage.total_tokens, usage.prompt_tokens, usage.completion_tokens))
    return "%d+%d tokens" % (usage.prompt_tokens, usage.completion_tokens)


def collect_stream(chunks):
    """Reads a streamed chat completion, checking the invariants every stream must keep.

    Returns the text, the tool calls by index ({"id", "name", "arguments"}), the finish reasons
    and the reasoning text. A call's first fragment (a new index) must carry its id, type and full
    name; later fragments carry argument text only: clients concatenate a call's string fields
    across fragments, so a repeated id or name would corrupt them."""
    expect(chunks, "the stream has no chunks")
    ids = {chunk.id for chunk in chunks}
    expect(len(ids) == 1, "the chunks have %d different ids: %s" % (len(ids), sorted(map(str, ids))[:4]))
    text, reasoning, calls, finishes = "", "", {}, []
    for number, chunk in enumerate(chunks):
        expect(chunk.object == "chat.completion.chunk", "chunk %d has object %r" % (number, chunk.object))
        if not chunk.choices:
            continue
        expect(chunk.usage is None, "chunk %d has choices and also usage" % number)
        choice = chunk.choices[0]
        delta = choice.delta
        if number == 0:
            expect(delta.role == "assistant", "the first chunk's role is %r, not 'assistant'" % delta.role)
        else:
            expect(delta.role is None, "chunk %d repeats the role (%r); only the first has it" % (number, delta.role))
        text += delta.content or ""
        reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
        fragments = delta.tool_calls or []
        expect(len(fragments) <= 1, "chunk %d has %d tool-call deltas; at most one per chunk" % (number, len(fragments)))
        for fragment in fragments:
            read_fragment(calls, fragment, number)
        if choice.finish_reason is not None:
            finishes.append(choice.finish_reason)
    expect(len(finishes) == 1, "the stream has %d finish reasons (%s), not exactly one" % (len(finishes), finishes))
    return text, calls, finishes[0], reasoning


def read_fragment(calls, fragment, number):
    """Adds one tool-call delta to `calls`, checking what a first and a later fragment carry."""
    name = fragment.function.name if fragment.function else None
    arguments = (fragment.function.arguments if fragment.function else None) or ""
    if fragment.index not in calls:
        expect(fragment.id, "chunk %d starts tool call %d without an id" % (number, fragment.index))
        expect(fragment.type == "function", "chunk %d starts tool call %d with type %r" % (number, fragment.index, fragment.type))
        expect(name, "chunk %d starts tool call %d without a name" % (number, fragment.index))
        expect(fragment.index == len(calls), "chunk %d starts tool call %d after %d calls" % (number, fragment.index, len(calls)))
        calls[fragment.index] = {"id": fragment.id, "name": name, "arguments": arguments}
        return
    expect(not fragment.id, "chunk %d repeats the id of tool call %d (%r)" % (number, fragment.index, fragment.id))
    expect(not name, "chunk %d repeats the name of tool call %d (%r)" % (number, fragment.index, name))
    calls[fragment.index]["arguments"] += arguments


def check_message_calls(message, finish_reason, names):
    """Checks a non-streamed answer's tool calls; returns the first one."""
    expect(message.tool_calls, "no tool_calls (content %s, finish_reason %r)" % (short(message.content), finish_reason))
    for call in message.tool_calls:
        expect(call.id, "a tool call has no id")
        expect(call.type == "function", "a tool call has type %r, not 'function'" % call.type)
        expect(call.function.name in names, "a tool call is to %r, not %s" % (call.function.name, " or ".join(names)))
        parse_object(call.function.arguments, "the arguments of %s" % call.function.name)
    expect(finish_reason == "tool_calls", "finish_reason is %r, not 'tool_calls'" % finish_reason)
    return message.tool_calls[0]


class Checks:
    """The checks, one method each, against one server."""

    def __init__(self, base_url, api_key, model, timeout):
        self.base_url = base_url.rstrip("/")
        self.keyed = api_key not in ("", "none")
        self.api_key = api_key if self.keyed else "none"
        self.model = model
        self.timeout = timeout
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=timeout)

    def create(self, client=None, **fields):
        return (client or self.client).chat.completions.create(**{**SETTINGS, "model": self.model, **fields})

    def stream(self, client=None, **fields):
        return list(self.create(client, stream=True, **fields))

    def raw(self, method, path, **arguments):
        """A request with plain httpx, outside the SDK, with the key unless headers are given."""
        headers = arguments.pop("headers", {"Authorization": "Bearer " + self.api_key} if self.keyed else {})
        with httpx.Client(timeout=self.timeout) as client:
            return client.request(method, self.base_url + path, headers=headers, **arguments)

    def chat(self):
        answer = self.create(messages=GREETING, max_tokens=16)
        expect(answer.object == "chat.completion", "object is %r, not 'chat.completion'" % answer.object)
        expect(len(answer.choices) == 1, "%d choices, not 1" % len(answer.choices))
        choice = answer.choices[0]
        expect(isinstance(choice.message.content, str) and choice.message.content,
               "content is %r, not a non-empty string" % choice.message.content)
        expect(choice.finish_reason in ("stop", "length"), "finish_reason is %r" % choice.finish_reason)
        counts = check_usage(answer.usage, "the answer")
        details = answer.usage.prompt_tokens_details
        expect(details is not None and isinstance(details.cached_tokens, int),
               "usage.prompt_tokens_details.cached_tokens is not an integer (details: %r)" % details)
        return "%s (%s, %s, %d cached)" % (short(choice.message.content), choice.finish_reason, counts, details.cached_tokens)

    def stream_check(self):
        chunks = self.stream(messages=GREETING, max_tokens=16, stream_options={"include_usage": True})
        text, calls, finish, _ = collect_stream(chunks)
        expect(text, "the streamed text is empty")
        expect(not calls, "the stream has tool calls")
        last = chunks[-1]
        expect(last.choices == [], "the last chunk has choices (%d); the usage chunk must have none" % len(last.choices))
        expect(all(chunk.choices for chunk in chunks[:-1]), "a chunk before the last has no choices")
        counts = check_usage(last.usage, "the last chunk")
        return "%s in %d chunks (%s, %s)" % (short(text), len(chunks), finish, counts)

    def tools_required(self):
        answer = self.create(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice="required", max_tokens=48)
        call = check_message_calls(answer.choices[0].message, answer.choices[0].finish_reason, ["get_weather"])
        return "%s(%s) id %s" % (call.function.name, call.function.arguments, call.id)

    def tools_single(self):
        # With parallel calls off the server stops at the first call, but still reads the turn's
        # end: the usage is the turn's own count, the one its llama.cpp timings give.
        answer = self.create(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice="required", max_tokens=48,
                             parallel_tool_calls=False)
        call = check_message_calls(answer.choices[0].message, answer.choices[0].finish_reason, ["get_weather"])
        timings = (answer.model_extra or {}).get("timings")
        expect(timings, "no timings: the answer was sent before its turn's final metrics")
        used = answer.usage.completion_tokens
        expect(used == timings["predicted_n"], "usage says %d completion tokens, the turn %r" % (used, timings))
        return "%s(%s) in %d tokens" % (call.function.name, call.function.arguments, used)

    def tools_named(self):
        # A question about the time, so that only the forced choice makes the call get_weather.
        answer = self.create(messages=[{"role": "user", "content": "What time is it in Tokyo?"}],
                             tools=[TIME_TOOL, WEATHER_TOOL], max_tokens=48,
                             tool_choice={"type": "function", "function": {"name": "get_weather"}})
        call = check_message_calls(answer.choices[0].message, answer.choices[0].finish_reason, ["get_weather"])
        return "%s(%s)" % (call.function.name, call.function.arguments)

    def tools_none(self):
        answer = self.create(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice="none", max_tokens=16)
        message = answer.choices[0].message
        expect(not message.tool_calls, "tool_calls despite tool_choice 'none': %r" % message.tool_calls)
        expect(message.content, "content is %r, not a non-empty string" % message.content)
        return "%s (%s)" % (short(message.content), answer.choices[0].finish_reason)

    def tools_stream(self):
        fields = dict(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice="required", max_tokens=48)
        chunks = self.stream(**fields)
        _, calls, finish, _ = collect_stream(chunks)
        expect(calls, "the stream has no tool calls (finish_reason %r)" % finish)
        expect(finish == "tool_calls", "finish_reason is %r, not 'tool_calls'" % finish)
        streamed = calls[0]
        expect(streamed["name"] == "get_weather", "the call is to %r, not get_weather" % streamed["name"])
        arguments = parse_object(streamed["arguments"], "the streamed arguments")
        answer = self.create(**fields)
        whole = check_message_calls(answer.choices[0].message, answer.choices[0].finish_reason, ["get_weather"])
        expected = parse_object(whole.function.arguments, "the non-streamed arguments")
        expect(arguments == expected, "the streamed arguments %s differ from the non-streamed %s"
               % (json.dumps(arguments), json.dumps(expected)))
        return "%d call(s), get_weather(%s) in %d chunks, as non-streamed" % (len(calls), json.dumps(arguments), len(chunks))

    def tool_result(self):
        # No tools are offered with the result, so that the answer has to be text.
        messages = WEATHER_QUESTION + [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_weather_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]},
            {"role": "tool", "tool_call_id": "call_weather_1", "content": "Sunny, 21 °C"}]
        response = self.client.chat.completions.with_raw_response.create(
            **dict(SETTINGS, model=self.model, messages=messages, max_tokens=24))
        expect(response.status_code == 200, "status %d, not 200" % response.status_code)
        answer = response.parse()
        message = answer.choices[0].message
        expect(isinstance(message.content, str) and message.content, "content is %r, not text" % message.content)
        return "%s (%s)" % (short(message.content), answer.choices[0].finish_reason)

    def json_schema(self):
        answer = self.create(messages=[{"role": "user", "content": "Give the weather in Paris as JSON."}],
                             max_tokens=64, response_format={"type": "json_schema", "json_schema": {
                                 "name": "weather", "strict": True, "schema": CITY_SCHEMA}})
        content = answer.choices[0].message.content
        try:
            value = json.loads(content)
        except (TypeError, ValueError):
            raise CheckFailed("the content is not JSON (finish_reason %r): %s"
                              % (answer.choices[0].finish_reason, short(content, 120)))
        expect(isinstance(value, dict), "the content is not a JSON object: %s" % short(content, 120))
        expect(set(value) == {"city", "temperature"}, "the keys are %s, not city and temperature" % sorted(value))
        expect(isinstance(value["city"], str), "city is %r, not a string" % value["city"])
        expect(isinstance(value["temperature"], int) and not isinstance(value["temperature"], bool),
               "temperature is %r, not an integer" % value["temperature"])
        return json.dumps(value)

    def models(self):
        listed = [model.id for model in self.client.models.list()]
        expect(self.model in listed, "%r is not among the listed models %s" % (self.model, listed))
        response = self.client.models.with_raw_response.retrieve(self.model)
        body = json.loads(response.text)
        expect(isinstance(body, dict), "GET /models/%s answers a %s, not an object" % (self.model, type(body).__name__))
        model = response.parse()
        expect(model.id == self.model, "the retrieved model's id is %r" % model.id)
        expect(model.object == "model", "the retrieved model's object is %r, not 'model'" % model.object)
        return "listed %s; retrieved %s (owned by %s)" % (listed, model.id, model.owned_by)

    def errors(self):
        problems = []  # every part runs; the failure names each one that failed
        for part in (self.unknown_model, self.bad_field, self.malformed_body):
            try:
                part()
            except CheckFailed as failure:
                problems.append(str(failure))
        expect(not problems, "; ".join(problems))
        return "404 model_not_found, 400 naming n, 400 with an error object for malformed JSON"

    def unknown_model(self):
        try:
            self.create(model="no-such-model", messages=GREETING, max_tokens=4)
            raise CheckFailed("an unknown model was answered")
        except openai.NotFoundError as error:
            expect(error.code == "model_not_found", "the unknown model's error code is %r, not 'model_not_found'" % error.code)
            check_error_shape(error.response, "the unknown model's error")
        except openai.APIStatusError as error:
            raise CheckFailed("an unknown model gave %s %d, not NotFoundError 404: %s"
                              % (type(error).__name__, error.status_code, error.message))

    def bad_field(self):
        try:
            self.create(messages=GREETING, max_tokens=4, n=2)
            raise CheckFailed("n=2 was answered")
        except openai.BadRequestError as error:
            message = error.body.get("message", "") if isinstance(error.body, dict) else str(error.body)
            expect(re.search(r"\bn\b", message), "the n=2 error's message does not name n: %s" % short(message, 120))
            check_error_shape(error.response, "the n=2 error")
        except openai.APIStatusError as error:
            raise CheckFailed("n=2 gave %s %d, not BadRequestError 400" % (type(error).__name__, error.status_code))

    def malformed_body(self):
        headers = {"Content-Type": "application/json"}
        if self.keyed:
            headers["Authorization"] = "Bearer " + self.api_key
        body = b'{"model": "%s", "messages": [' % self.model.encode()  # cut short
        response = self.raw("POST", "/chat/completions", headers=headers, content=body)
        expect(response.status_code == 400, "a malformed JSON body gave status %d, not 400" % response.status_code)
        check_error_shape(response, "the malformed body's error")

    def bad_key(self):
        if not self.keyed:
            return "no key configured"
        wrong = openai.OpenAI(base_url=self.base_url, api_key="wrong-" + self.api_key, max_retries=0, timeout=self.timeout)
        for what, call in (("a chat", lambda: self.create(wrong, messages=GREETING, max_tokens=4)),
                           ("GET /models", lambda: wrong.models.list())):
            try:
                call()
                raise CheckFailed("%s with a wrong key was answered" % what)
            except openai.AuthenticationError as error:
                expect(error.status_code == 401, "%s with a wrong key gave %d" % (what, error.status_code))
            except openai.APIStatusError as error:
                raise CheckFailed("%s with a wrong key gave %s %d, not 401" % (what, type(error).__name__, error.status_code))
        right = self.raw("GET", "/models", headers={"x-api-key": self.api_key})
        expect(right.status_code == 200, "GET /models with the key in x-api-key gave %d, not 200" % right.status_code)
        wrong_header = self.raw("GET", "/models", headers={"x-api-key": "wrong-" + self.api_key})
        expect(wrong_header.status_code == 401, "GET /models with a wrong x-api-key gave %d, not 401" % wrong_header.status_code)
        check_error_shape(wrong_header, "the wrong key's error")
        return "401 for a wrong Bearer key (chat, models) and a wrong x-api-key; x-api-key accepted"

    def keepalive(self):
        # Every response records the network stream it arrived on. httpcore keeps one stream object
        # per TCP connection for the connection's life, and the list below holds each one, so no
        # object is freed and its identity cannot be reused: the same object means the same
        # connection. The socket's local port is shown as well.
        # The stream is read to its very end, the chunked body's last chunk included, through the
        # SDK's streaming response: the SDK's own iterator stops at `data: [DONE]` and closes the
        # response before that last chunk, which makes httpcore drop the connection whatever the
        # server does.
        seen = []

        def record(response):  # an exception here would reach the SDK, which reports it as a connection error
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            seen.append((stream, sock.getsockname()[1] if sock is not None else None))

        http = httpx.Client(limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                            timeout=self.timeout, event_hooks={"response": [record]})
        with http:
            client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0, http_client=http)
            with client.chat.completions.with_streaming_response.create(
                    **{**SETTINGS, "model": self.model, "messages": GREETING, "max_tokens": 8, "stream": True}) as response:
                events = [line for line in response.iter_lines() if line.startswith("data:")]
            expect(events and events[-1].split(":", 1)[1].strip() == "[DONE]", "the stream does not end with data: [DONE]")
            self.create(client, messages=GREETING, max_tokens=8)
            client.models.list()
        expect(len(seen) == 3, "%d responses were recorded, not 3" % len(seen))
        expect(all(stream is not None for stream, _ in seen), "httpx reported no network stream for a response")
        ports = [port for _, port in seen]
        expect(all(stream is seen[0][0] for stream, _ in seen),
               "the requests used %d connections (local ports %s), not one" % (len({id(s) for s, _ in seen}), ports))
        return "stream, chat and models on one connection (local port %d)" % ports[0]

    def reasoning(self):
        answer = self.create(messages=GREETING, max_tokens=48)
        message = answer.choices[0].message
        thought = (message.model_extra or {}).get("reasoning_content")
        check_thinking(thought, message.content, "the answer")
        text, _, _, streamed = collect_stream(self.stream(messages=GREETING, max_tokens=48))
        check_thinking(streamed, text, "the stream")
        return "thought %s, said %s; streamed alike" % (short(thought), short(message.content))

    def hermes_tools(self):
        fields = dict(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], max_tokens=48)
        answer = self.create(**fields)
        message = answer.choices[0].message
        call = check_message_calls(message, answer.choices[0].finish_reason, ["get_weather"])
        expect("<tool_call>" not in (message.content or ""), "the content keeps the markup: %s" % short(message.content, 120))
        text, calls, finish, _ = collect_stream(self.stream(**fields))
        expect(calls, "the stream has no tool calls (text %s)" % short(text, 120))
        expect(calls[0]["name"] == "get_weather", "the streamed call is to %r" % calls[0]["name"])
        streamed = parse_object(calls[0]["arguments"], "the streamed arguments")
        expect(streamed == json.loads(call.function.arguments), "the streamed arguments %s differ from %s"
               % (json.dumps(streamed), call.function.arguments))
        expect(finish == "tool_calls", "the stream's finish_reason is %r, not 'tool_calls'" % finish)
        expect("<tool_call>" not in text and "</tool_call>" not in text,
               "the streamed text keeps the markup: %s" % short(text, 120))
        return "get_weather(%s), streamed and not, no markup left" % call.function.arguments


def check_error_shape(response, what):
    """Checks that an error response is `{"error": {"message", "type", "code"}}`."""
    try:
        body = response.json()
    except ValueError:
        raise CheckFailed("%s is not JSON: %s" % (what, short(response.text, 120)))
    error = body.get("error") if isinstance(body, dict) else None
    expect(isinstance(error, dict), "%s has no error object: %s" % (what, short(response.text, 120)))
    for field in ("message", "type"):
        expect(isinstance(error.get(field), str) and error[field], "%s has no %s: %s" % (what, field, short(response.text, 120)))
    expect("code" in error, "%s has no code: %s" % (what, short(response.text, 120)))


def check_thinking(thought, content, what):
    expect(isinstance(thought, str) and thought, "%s has no reasoning_content (content %s)" % (what, short(content, 120)))
    expect(content, "%s has no content after its thinking" % what)
    for tag in ("<think>", "</think>"):
        expect(tag not in content, "%s's content keeps %s: %s" % (what, tag, short(content, 120)))
        expect(tag not in thought, "%s's reasoning_content keeps %s: %s" % (what, tag, short(thought, 120)))


CHECKS = {
    "chat": Checks.chat,
    "stream": Checks.stream_check,
    "tools-required": Checks.tools_required,
    "tools-single": Checks.tools_single,
    "tools-named": Checks.tools_named,
    "tools-none": Checks.tools_none,
    "tools-stream": Checks.tools_stream,
    "tool-result": Checks.tool_result,
    "json-schema": Checks.json_schema,
    "models": Checks.models,
    "errors": Checks.errors,
    "bad-key": Checks.bad_key,
    "keepalive": Checks.keepalive,
    "reasoning": Checks.reasoning,
    "hermes-tools": Checks.hermes_tools,
}


def main():
    client_checks.main("Checks an OpenAI-compatible server with the openai SDK.", CHECKS,
                lambda args: Checks(args.base_url, args.api_key, args.model, args.timeout),
                openai.APIStatusError, "http://127.0.0.1:8080/v1")


if __name__ == "__main__":
    main()
