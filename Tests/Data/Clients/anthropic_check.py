#!/usr/bin/env python3
"""Checks the Anthropic Messages endpoints of `loopl serve` with the real `anthropic` Python SDK.

    anthropic_check.py --base-url http://127.0.0.1:PORT --api-key KEY --model NAME CHECK...

Runs each named CHECK in order and prints one line for it, `ok NAME: <detail>` or
`FAIL NAME: <why>`. Exits 0 when every check passed, 1 when one failed, 2 for a usage error.
`--base-url` is the server's root (the SDK adds /v1/messages). Run it with the Python of
scripts/sdk-clients (LOOPL_SDK_PYTHON), which has the pinned SDKs.

The checks are meant for a small model: temperature 0, a fixed seed and few tokens. `thinking`
expects the scripted `thinking` worker of Tests/Data/Clients (serve-workers.json); `ping` a server
whose keep-alive interval is shorter than the prompt's evaluation.
"""

import json

import anthropic
import httpx
import openai

import client_checks
from client_checks import CheckFailed, expect, short

WEATHER_TOOL = {"name": "get_weather", "description": "The current weather in a city.",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string", "description": "The city's name."}},
                                 "required": ["city"]}}
WEATHER_QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
GREETING = [{"role": "user", "content": "Say hello in one short sentence."}]
# This SDK has no sampling arguments; `temperature` and Loopl's `seed` ride in the body as extras.
SETTINGS = {"extra_body": {"temperature": 0, "seed": 7}}
RAW_EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
              "message_stop"}




def check_order(events):
    """Checks the raw event order of a stream; returns the events' types."""
    types = [event.type for event in events if event.type in RAW_EVENTS]
    expect(types and types[0] == "message_start", "the first event is %r, not message_start" % (types[:1],))
    expect(types[-2:] == ["message_delta", "message_stop"], "the stream ends with %r" % types[-2:])
    open_index, next_index = None, 0
    for event in events:
        if event.type == "content_block_start":
            expect(open_index is None and event.index == next_index,
                   "block %d starts while %r is open (expected index %d)" % (event.index, open_index, next_index))
            open_index = event.index
        elif event.type == "content_block_delta":
            expect(event.index == open_index, "a delta for block %d while %r is open" % (event.index, open_index))
        elif event.type == "content_block_stop":
            expect(event.index == open_index, "a stop for block %d while %r is open" % (event.index, open_index))
            open_index, next_index = None, next_index + 1
    expect(open_index is None, "block %r never stops" % open_index)
    return types


def blocks_of(message, kind):
    return [block for block in message.content if block.type == kind]


class Checks:
    """The checks, one method each, against one server."""

    def __init__(self, base_url, api_key, model, timeout):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.timeout = timeout
        self.client = anthropic.Anthropic(base_url=self.base_url, api_key=api_key, max_retries=0, timeout=timeout)

    def create(self, **fields):
        return self.client.messages.create(**{**SETTINGS, "model": self.model, **fields})

    def stream(self, **fields):
        """Streams a message; returns its events and the SDK's accumulated final message."""
        with self.client.messages.stream(**{**SETTINGS, "model": self.model, **fields}) as stream:
            events = list(stream)
            return events, stream.get_final_message()

    def raw(self, path, body, headers=None):
        with httpx.Client(timeout=self.timeout) as client:
            return client.post(self.base_url + path, json=body,
                               headers={"x-api-key": self.api_key, "anthropic-version": "2023-06-01", **(headers or {})})

    def create_check(self):
        message = self.create(messages=GREETING, max_tokens=16)
        expect(message.type == "message" and message.role == "assistant", "type %r role %r" % (message.type, message.role))
        expect(message.id.startswith("msg_"), "the id %r does not start with msg_" % message.id)
        expect(message.model == self.model, "model is %r, not the %r asked for" % (message.model, self.model))
        texts = blocks_of(message, "text")
        expect(texts and texts[0].text, "no text block: %r" % message.content)
        expect(message.stop_reason in ("end_turn", "max_tokens"), "stop_reason is %r" % message.stop_reason)
        usage = message.usage
        expect(usage.input_tokens + (usage.cache_read_input_tokens or 0) > 0, "no input tokens: %r" % usage)
        expect(usage.output_tokens > 0, "output_tokens is %r" % usage.output_tokens)
        return "%s (%s, %d+%d tokens)" % (short(texts[0].text), message.stop_reason, usage.input_tokens, usage.output_tokens)

    def stream_check(self):
        events, final = self.stream(messages=GREETING, max_tokens=16)
        types = check_order(events)
        streamed = "".join(event.delta.text for event in events
                           if event.type == "content_block_delta" and event.delta.type == "text_delta")
        expect(streamed, "no text_delta")
        whole = self.create(messages=GREETING, max_tokens=16)
        expect(blocks_of(final, "text")[0].text == streamed, "the final message's text differs from the deltas")
        expect(streamed == blocks_of(whole, "text")[0].text,
               "streamed %s but not streamed %s" % (short(streamed), short(blocks_of(whole, "text")[0].text)))
        expect(final.stop_reason == whole.stop_reason, "stop_reason %r streamed, %r not" % (final.stop_reason, whole.stop_reason))
        expect(final.usage.output_tokens > 0, "the stream's output_tokens is %r" % final.usage.output_tokens)
        return "%s in %d events (%s)" % (short(streamed), len(types), final.stop_reason)

    def forced_call(self):
        message = self.create(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice={"type": "any"}, max_tokens=48)
        calls = blocks_of(message, "tool_use")
        expect(len(calls) >= 1, "no tool_use block: %r" % message.content)
        expect(message.stop_reason == "tool_use", "stop_reason is %r, not tool_use" % message.stop_reason)
        call = calls[0]
        expect(call.name == "get_weather" and call.id.startswith("toolu_"), "call %r id %r" % (call.name, call.id))
        expect(isinstance(call.input, dict) and isinstance(call.input.get("city"), str), "input is %r" % call.input)
        return message, call

    def tools_any(self):
        _, call = self.forced_call()
        return "%s(%s) id %s" % (call.name, json.dumps(call.input), call.id)

    def tools_stream(self):
        _, call = self.forced_call()
        events, final = self.stream(messages=WEATHER_QUESTION, tools=[WEATHER_TOOL], tool_choice={"type": "any"}, max_tokens=48)
        check_order(events)
        partial = "".join(event.delta.partial_json for event in events
                          if event.type == "content_block_delta" and event.delta.type == "input_json_delta")
        expect(json.loads(partial) == call.input, "partial_json joins to %s, not %s" % (partial, json.dumps(call.input)))
        streamed = blocks_of(final, "tool_use")
        expect(streamed and streamed[0].input == call.input, "the streamed call is %r" % streamed)
        expect(final.stop_reason == "tool_use", "the stream's stop_reason is %r" % final.stop_reason)
        return "get_weather(%s), streamed and not" % partial

    def tool_result(self):
        message, call = self.forced_call()
        history = WEATHER_QUESTION + [
            {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in message.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                          "content": [{"type": "text", "text": "18 degrees and sunny"}]}]}]
        answer = self.create(messages=history, tools=[WEATHER_TOOL], tool_choice={"type": "none"}, max_tokens=24)
        texts = blocks_of(answer, "text")
        expect(texts and texts[0].text, "no text after the tool result: %r" % answer.content)
        expect(not blocks_of(answer, "tool_use"), "a call with tool_choice none")
        return "%s (%s)" % (short(texts[0].text), answer.stop_reason)

    def thinking(self):
        events, final = self.stream(messages=GREETING, max_tokens=64)
        check_order(events)
        deltas = [event.delta.type for event in events if event.type == "content_block_delta"]
        expect("thinking_delta" in deltas and "signature_delta" in deltas, "deltas are %r" % deltas)
        expect([block.type for block in final.content] == ["thinking", "text"], "blocks are %r" % final.content)
        thought, text = final.content[0].thinking, final.content[1].text
        expect(final.content[0].signature, "the streamed thinking block has no signature")
        expect(thought and "<think>" not in thought and "</think>" not in thought, "thinking is %s" % short(thought))
        expect(text and "<think>" not in text and "</think>" not in text, "text is %s" % short(text))
        whole = self.create(messages=GREETING, max_tokens=64)
        expect([block.type for block in whole.content] == ["thinking", "text"], "whole blocks are %r" % whole.content)
        return "thought %s, said %s" % (short(thought), short(text))

    def count_tokens(self):
        small = self.client.messages.count_tokens(model=self.model, messages=GREETING).input_tokens
        longer = self.client.messages.count_tokens(
            model=self.model, system="You are a weather assistant for travellers in Europe.",
            messages=GREETING + [{"role": "assistant", "content": "Hello!"},
                                 {"role": "user", "content": "Now tell me about the weather in Paris, please."}]).input_tokens
        expect(isinstance(small, int) and small > 0, "input_tokens is %r" % small)
        expect(longer > small, "a longer prompt counts %d, not more than %d" % (longer, small))
        message = self.create(messages=GREETING, max_tokens=4)
        used = message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0)
        expect(used == small, "count_tokens says %d, the message used %d" % (small, used))
        return "%d then %d tokens" % (small, longer)

    def counted(self):
        """A count and whether the server says it is a heuristic's."""
        result = self.client.messages.count_tokens(model=self.model, messages=GREETING)
        return result.input_tokens, (result.model_extra or {}).get("estimated")

    def count_exact(self):
        count, estimated = self.counted()
        expect(estimated is None, "a tokenizer's count says estimated: %r" % estimated)
        return "%d tokens, not estimated" % count

    def count_estimated(self):
        count, estimated = self.counted()
        expect(estimated is True, "a worker's heuristic count lacks estimated: true (%r)" % estimated)
        return "%d tokens, estimated" % count

    def bad_key(self):
        client = anthropic.Anthropic(base_url=self.base_url, api_key="wrong", max_retries=0, timeout=self.timeout)
        try:
            client.messages.create(model=self.model, messages=GREETING, max_tokens=4)
        except anthropic.AuthenticationError as error:
            expect(error.body.get("type") == "error" and error.body["error"]["type"] == "authentication_error",
                   "the body is %r" % error.body)
            return "401 %s" % short(error.body["error"]["message"])
        raise CheckFailed("a wrong key was accepted")

    def missing_max_tokens(self):
        response = self.raw("/v1/messages", {"model": self.model, "messages": GREETING})
        expect(response.status_code == 400, "status %d: %s" % (response.status_code, short(response.text, 120)))
        body = response.json()
        expect(body.get("type") == "error" and body["error"]["type"] == "invalid_request_error", "body %r" % body)
        expect("max_tokens" in body["error"]["message"], "the message does not name max_tokens: %r" % body)
        return short(body["error"]["message"], 80)

    def refusals(self):
        image = [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]}]
        try:
            self.create(messages=image, max_tokens=4)
        except anthropic.BadRequestError as error:
            expect("content[0].type" in error.body["error"]["message"], "the message names no block: %r" % error.body)
        else:
            raise CheckFailed("an image block was accepted")
        server_tool = {"type": "web_search_20250305", "name": "web_search", "max_uses": 1}
        raw = self.client.messages.with_raw_response.create(**{**SETTINGS, "model": self.model}, messages=GREETING, max_tokens=4,
                                                            tools=[server_tool], metadata={"user_id": "u1"},
                                                            extra_headers={"anthropic-beta": "some-beta-2025"})
        warning = raw.headers.get("loopl-warning", "")
        expect("web_search" in warning, "no Loopl-Warning naming the server tool: %r" % warning)
        expect(raw.parse().type == "message", "the answer is not a message")
        return "image refused; %s" % short(warning, 80)

    def ping(self):
        prompt = [{"role": "user", "content": "Summarise: " + "the quick brown fox jumps over the lazy dog. " * 60}]
        body = {"model": self.model, "messages": prompt, "max_tokens": 2, "stream": True, "temperature": 0}
        with httpx.Client(timeout=self.timeout) as client:
            with client.stream("POST", self.base_url + "/v1/messages", json=body, headers={"x-api-key": self.api_key}) as response:
                text = response.read().decode()
        names = [line[len("event: "):] for line in text.split("\n") if line.startswith("event: ")]
        expect("ping" in names, "no ping event: %r" % names)
        expect('data: {"type":"ping"}' in text, "the ping carries no data")
        first = next(name for name in names if name != "ping")
        expect(first == "message_start", "the first non-ping event is %r" % first)
        comments = [line for line in text.split("\n") if line.startswith(":")]
        expect(not comments and "[DONE]" not in text, "an OpenAI comment %r or [DONE] in the stream" % comments[:1])
        return "%d pings, then %s" % (names.count("ping"), " ".join(dict.fromkeys(name for name in names if name != "ping")))

    def stream_error(self):
        """A stream whose engine is lost after its first token ends with an `error` event."""
        try:
            events, _ = self.stream(messages=GREETING, max_tokens=16)
        except anthropic.APIStatusError as error:
            kind = error.body.get("error", {}).get("type") if isinstance(error.body, dict) else None
            expect(error.body.get("type") == "error" and kind in ("overloaded_error", "api_error"),
                   "the error event's body is %r" % error.body)
        else:
            raise CheckFailed("the stream ended without an error: %r" % [event.type for event in events])
        body = {"model": self.model, "messages": GREETING, "max_tokens": 16, "stream": True}
        with httpx.Client(timeout=self.timeout) as client:
            with client.stream("POST", self.base_url + "/v1/messages", json=body, headers={"x-api-key": self.api_key}) as response:
                text = response.read().decode()
        names = [line[len("event: "):] for line in text.split("\n") if line.startswith("event: ")]
        expect(response.status_code == 200 and names[:1] == ["message_start"], "%d %r" % (response.status_code, names))
        expect(names[-1] == "error" and "message_stop" not in names, "the events are %r" % names)
        return "%s, then an error event (%s through the SDK)" % (" ".join(dict.fromkeys(names[:-1])), kind)

    def same_call(self):
        """One forced call through every dialect on one backend: the same name and arguments."""
        openai_client = openai.OpenAI(base_url=self.base_url + "/v1", api_key=self.api_key, max_retries=0, timeout=self.timeout)

        def chat():
            answer = openai_client.chat.completions.create(
                model=self.model, messages=WEATHER_QUESTION, temperature=0, seed=7, max_tokens=48, tool_choice="required",
                tools=[{"type": "function", "function": {"name": WEATHER_TOOL["name"], "description": WEATHER_TOOL["description"],
                                                         "parameters": WEATHER_TOOL["input_schema"]}}])
            call = answer.choices[0].message.tool_calls[0].function
            return call.name, json.loads(call.arguments)

        def messages():
            _, call = self.forced_call()
            return call.name, call.input

        def responses():
            answer = openai_client.responses.create(
                model=self.model, input=WEATHER_QUESTION, temperature=0, max_output_tokens=48, tool_choice="required",
                tools=[{"type": "function", "name": WEATHER_TOOL["name"], "description": WEATHER_TOOL["description"],
                        "parameters": WEATHER_TOOL["input_schema"]}])
            call = next(item for item in answer.output if item.type == "function_call")
            return call.name, json.loads(call.arguments)

        dialects = {"chat": chat, "messages": messages, "responses": responses}
        calls = {name: ask() for name, ask in dialects.items()}
        expect(len({json.dumps(call, sort_keys=True) for call in calls.values()}) == 1, "the calls differ: %r" % calls)
        name, arguments = calls["chat"]
        return "%s(%s) through %s" % (name, json.dumps(arguments), ", ".join(calls))


CHECKS = {
    "create": Checks.create_check,
    "stream": Checks.stream_check,
    "tools-any": Checks.tools_any,
    "tools-stream": Checks.tools_stream,
    "tool-result": Checks.tool_result,
    "thinking": Checks.thinking,
    "count-tokens": Checks.count_tokens,
    "count-exact": Checks.count_exact,
    "count-estimated": Checks.count_estimated,
    "bad-key": Checks.bad_key,
    "missing-max-tokens": Checks.missing_max_tokens,
    "refusals": Checks.refusals,
    "ping": Checks.ping,
    "stream-error": Checks.stream_error,
    "same-call": Checks.same_call,
}


def main():
    client_checks.main("Checks loopl serve's Messages endpoints with the anthropic SDK.", CHECKS,
                lambda args: Checks(args.base_url, args.api_key, args.model, args.timeout),
                (anthropic.APIStatusError, openai.APIStatusError), "http://127.0.0.1:8080")


if __name__ == "__main__":
    main()
