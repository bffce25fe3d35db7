#!/usr/bin/env python3
"""Checks the Responses API of an OpenAI-compatible server (`loopl serve`) with the real `openai` SDK.

    responses_check.py --base-url http://127.0.0.1:PORT/v1 --api-key KEY --model NAME CHECK...

Runs each named CHECK in order and prints one line for it, `ok NAME: <detail>` or
`FAIL NAME: <why>`. Exits 0 when every check passed, 1 when one failed, 2 for a usage error.
`--api-key none` talks to a server that asks for no key. Run it with the Python of
scripts/sdk-clients (LOOPL_SDK_PYTHON), which has the pinned SDK.

The checks are meant for a small model: temperature 0 and few tokens; none relies on what the
model says. `reasoning` expects the scripted `thinking` worker of Tests/Data/Clients.
"""

import json

import httpx
import openai

import client_checks
from client_checks import CheckFailed, expect, short

WEATHER_TOOL = {"type": "function", "name": "get_weather", "description": "The current weather in a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "temperature": {"type": "integer"}},
               "required": ["city", "temperature"], "additionalProperties": False}
GREETING = "Say hello in one short sentence."




def check_usage(usage, what):
    """Checks the token counts of a response; returns them as `I+O tokens`."""
    expect(usage is not None, "%s has no usage" % what)
    expect(isinstance(usage.input_tokens, int) and usage.input_tokens > 0, "%s: input_tokens is %r" % (what, usage.input_tokens))
    expect(isinstance(usage.output_tokens, int) and usage.output_tokens > 0, "%s: output_tokens is %r" % (what, usage.output_tokens))
    expect(usage.total_tokens == usage.input_tokens + usage.output_tokens, "%s: total_tokens is not their sum" % what)
    expect(isinstance(usage.input_tokens_details.cached_tokens, int), "%s: no cached_tokens" % what)
    expect(isinstance(usage.output_tokens_details.reasoning_tokens, int), "%s: no reasoning_tokens" % what)
    return "%d+%d tokens" % (usage.input_tokens, usage.output_tokens)


def collect(events):
    """Reads a stream's events, checking the invariants every stream keeps; returns the last
    response, the concatenated text deltas, the reasoning deltas and the event count."""
    events = list(events)
    expect(events, "the stream is empty")
    numbers = [event.sequence_number for event in events]
    expect(numbers == list(range(len(events))), "the sequence numbers are %s, not 0..%d" % (numbers[:12], len(events) - 1))
    expect(events[0].type == "response.created", "the first event is %s" % events[0].type)
    expect(events[-1].type in ("response.completed", "response.incomplete"), "the last event is %s" % events[-1].type)
    opened, text, thought, done_text = set(), "", "", ""
    for event in events:
        if event.type == "response.output_item.added":
            expect(event.output_index not in opened, "item %d added twice" % event.output_index)
            opened.add(event.output_index)
        elif event.type == "response.output_item.done":
            expect(event.output_index in opened, "item %d done before it was added" % event.output_index)
            opened.discard(event.output_index)
        elif event.type == "response.output_text.delta":
            text += event.delta
        elif event.type == "response.output_text.done":
            done_text += event.text
        elif event.type == "response.reasoning_summary_text.delta":
            thought += event.delta
    expect(not opened, "items %s were never done" % sorted(opened))
    expect(done_text == text, "the text deltas %s differ from output_text.done %s" % (short(text), short(done_text)))
    response = events[-1].response
    expect(response.output_text == text, "the deltas %s differ from the final output_text %s" % (short(text), short(response.output_text)))
    return response, text, thought, len(events)


class Checks:
    """The checks, one method each, against one server."""

    def __init__(self, base_url, api_key, model, timeout, response_id=None):
        self.response_id = response_id
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key not in ("", "none") else "none"
        self.model = model
        self.timeout = timeout
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=timeout)

    def create(self, **fields):
        return self.client.responses.create(**{"model": self.model, "temperature": 0, **fields})

    def expect_status(self, status, code, call):
        try:
            call()
        except openai.APIStatusError as error:
            expect(error.status_code == status, "status %d, not %d: %s" % (error.status_code, status, error.message))
            body = error.body if isinstance(error.body, dict) else {}
            expect(code is None or body.get("code") == code, "code %r, not %r" % (body.get("code"), code))
            return error
        raise CheckFailed("the request succeeded; expected %d" % status)

    def create_check(self):
        response = self.create(input=GREETING, max_output_tokens=32)
        expect(response.object == "response" and response.id.startswith("resp_"), "id %r, object %r" % (response.id, response.object))
        expect(response.status in ("completed", "incomplete"), "status %r" % response.status)
        expect(response.output and response.output[-1].type == "message", "the output is %r" % response.output)
        expect(response.output_text, "output_text is empty")
        return "%s (%s, %s)" % (short(response.output_text), response.status, check_usage(response.usage, "the response"))

    def stream_check(self):
        response, text, _, count = collect(self.create(input=GREETING, max_output_tokens=32, stream=True))
        expect(text, "the streamed text is empty")
        check_usage(response.usage, "the final response")
        with self.client.responses.stream(model=self.model, input=GREETING, max_output_tokens=64, temperature=0) as stream:
            deltas = "".join(event.delta for event in stream if event.type == "response.output_text.delta")
            final = stream.get_final_response()
        expect(deltas == final.output_text, "the helper's deltas %s differ from %s" % (short(deltas), short(final.output_text)))
        return "%s in %d events; the stream helper agrees (%s)" % (short(text), count, short(final.output_text))

    def tools(self):
        question = [{"role": "user", "content": "What is the weather in Paris?"}]
        response = self.create(input=question, tools=[WEATHER_TOOL], tool_choice="required", max_output_tokens=48)
        calls = [item for item in response.output if item.type == "function_call"]
        expect(calls, "no function_call item in %r" % response.output)
        call = calls[0]
        expect(call.name == "get_weather" and call.call_id, "the call is %r" % call)
        arguments = json.loads(call.arguments)
        expect(isinstance(arguments, dict), "the arguments are not an object: %s" % call.arguments)
        answer = self.create(input=question + [
            {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21 C"}], max_output_tokens=24)
        expect(answer.output_text, "no text after the tool's result: %r" % answer.output)
        streamed, _, _, _ = collect(self.create(input=question, tools=[WEATHER_TOOL], tool_choice="required",
                                                max_output_tokens=48, stream=True))
        expect(any(item.type == "function_call" for item in streamed.output), "the stream made no call")
        return "get_weather(%s), then %s" % (call.arguments, short(answer.output_text))

    def json_schema(self):
        response = self.create(input="Give the weather in Paris as JSON.", max_output_tokens=64,
                               text={"format": {"type": "json_schema", "name": "weather", "strict": True, "schema": CITY_SCHEMA}})
        try:
            value = json.loads(response.output_text)
        except ValueError:
            raise CheckFailed("the text is not JSON: %s" % short(response.output_text, 120))
        expect(isinstance(value, dict) and set(value) == {"city", "temperature"}, "the JSON is %s" % short(response.output_text, 120))
        return json.dumps(value)

    def previous(self):
        first = self.create(input="My name is Ada.", max_output_tokens=16)
        fresh = self.create(input="What is my name?", max_output_tokens=16, store=False)
        second = self.create(input="What is my name?", previous_response_id=first.id, max_output_tokens=16)
        expect(second.previous_response_id == first.id, "previous_response_id is %r" % second.previous_response_id)
        expect(second.usage.input_tokens > fresh.usage.input_tokens + first.usage.output_tokens,
               "the continuation has %d input tokens, the question alone %d: the history was not sent"
               % (second.usage.input_tokens, fresh.usage.input_tokens))
        return "%d input tokens with the history, %d without" % (second.usage.input_tokens, fresh.usage.input_tokens)

    def get_delete(self):
        response = self.create(input=GREETING, max_output_tokens=16)
        got = self.client.responses.retrieve(response.id)
        expect(got.id == response.id and got.output_text == response.output_text, "GET answers %r" % got)
        deleted = self.client.responses.delete(response.id)
        expect(deleted is None, "delete answered %r" % deleted)
        raw = httpx.delete(self.base_url + "/responses/" + response.id, headers={"Authorization": "Bearer " + self.api_key})
        expect(raw.status_code == 404, "a second DELETE answers %d" % raw.status_code)
        self.expect_status(404, "response_not_found", lambda: self.client.responses.retrieve(response.id))
        unstored = self.create(input=GREETING, max_output_tokens=8, store=False)
        self.expect_status(404, "response_not_found", lambda: self.client.responses.retrieve(unstored.id))
        return "GET, DELETE, then 404; store=false is not kept"

    def other_tools(self):
        raw = self.client.responses.with_raw_response.create(model=self.model, input=GREETING, max_output_tokens=8,
                                                             temperature=0, tools=[{"type": "web_search"}])
        expect(raw.status_code == 200, "status %d" % raw.status_code)
        warning = raw.headers.get("loopl-warning", "")
        expect("web_search" in warning, "the Loopl-Warning header is %r" % warning)
        expect(raw.parse().output_text is not None, "the body did not parse")
        return "200 with Loopl-Warning: %s" % warning

    def errors(self):
        error = self.expect_status(404, "previous_response_not_found",
                                   lambda: self.create(input="x", previous_response_id="resp_doesnotexist"))
        image = self.expect_status(400, None, lambda: self.create(input=[{"role": "user", "content": [
            {"type": "input_image", "image_url": "https://example.com/a.png"}]}]))
        expect("input[0].content[0].type" in image.message, "the 400 does not name the part: %s" % image.message)
        return "unknown previous_response_id 404 (%s); input_image 400" % short(error.message, 60)

    def failed(self):
        events = list(self.create(input=GREETING, max_output_tokens=32, stream=True))
        numbers = [event.sequence_number for event in events]
        expect(numbers == list(range(len(events))), "the sequence numbers are %s" % numbers)
        kinds = [event.type for event in events]
        expect(kinds[0] == "response.created" and kinds[-1] == "response.failed", "the events are %s" % kinds)
        response = events[-1].response
        expect(response.status == "failed" and response.error and response.error.message, "the failed response is %r" % response)
        self.expect_status(404, "response_not_found", lambda: self.client.responses.retrieve(response.id))
        return "%d events, then response.failed: %s" % (len(events) - 1, short(response.error.message, 80))

    def keepalive(self):
        long_input = "Summarize this text. " + "The quick brown fox jumps over the lazy dog. " * 100
        body = {"model": self.model, "input": long_input, "max_output_tokens": 4, "temperature": 0, "stream": True}
        with httpx.stream("POST", self.base_url + "/responses", json=body, timeout=self.timeout,
                          headers={"Authorization": "Bearer " + self.api_key}) as response:
            lines = [line for line in response.iter_lines()]
        expect(response.status_code == 200, "status %d" % response.status_code)
        expect(lines and lines[0] == ": ping", "the first line while a long prompt is evaluated: %r" % (lines[:1],))
        events = [line[len("event: "):] for line in lines if line.startswith("event: ")]
        expect(events[:2] == ["response.created", "response.in_progress"] and events[-1] in ("response.completed", "response.incomplete"),
               "the events after the pings are %s" % events)
        return "%d ping(s), then %d events" % (sum(1 for line in lines if line == ": ping"), len(events))

    def retrieve(self):
        expect(self.response_id, "give --response-id")
        got = self.client.responses.retrieve(self.response_id)
        expect(got.id == self.response_id and got.output, "GET answers %r" % got)
        follow = self.create(input="And then?", previous_response_id=self.response_id, max_output_tokens=8)
        return "%s kept: %s; continued with %d input tokens" % (got.id, short(got.output_text), follow.usage.input_tokens)

    def reasoning(self):
        response = self.create(input=GREETING, max_output_tokens=48)
        kinds = [item.type for item in response.output]
        expect(kinds[:1] == ["reasoning"] and "message" in kinds, "the items are %s, not reasoning then message" % kinds)
        thought = "".join(part.text for part in response.output[0].summary)
        expect(thought, "the reasoning item has no summary text")
        for tag in ("<think>", "</think>"):
            expect(tag not in response.output_text and tag not in thought, "%s left in %s / %s" % (tag, short(response.output_text), short(thought)))
        streamed, text, streamed_thought, _ = collect(self.create(input=GREETING, max_output_tokens=48, stream=True))
        expect(streamed_thought == thought, "the streamed thinking %s differs from %s" % (short(streamed_thought), short(thought)))
        expect(text == response.output_text, "the streamed text %s differs from %s" % (short(text), short(response.output_text)))
        return "thought %s, said %s; streamed alike" % (short(thought), short(response.output_text))


CHECKS = {
    "create": Checks.create_check,
    "stream": Checks.stream_check,
    "tools": Checks.tools,
    "json-schema": Checks.json_schema,
    "previous": Checks.previous,
    "get-delete": Checks.get_delete,
    "other-tools": Checks.other_tools,
    "errors": Checks.errors,
    "retrieve": Checks.retrieve,
    "keepalive": Checks.keepalive,
    "failed": Checks.failed,
    "reasoning": Checks.reasoning,
}


def main():
    client_checks.main("Checks the Responses API of a server with the openai SDK.", CHECKS,
                lambda args: Checks(args.base_url, args.api_key, args.model, args.timeout, args.response_id),
                openai.APIStatusError, "http://127.0.0.1:8080/v1",
                extra=lambda parser: parser.add_argument("--response-id", help="the stored response that `retrieve` reads"))


if __name__ == "__main__":
    main()
