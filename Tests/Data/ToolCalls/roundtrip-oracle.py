#!/usr/bin/env python3
"""Renders an assistant turn with tool calls through every chat template in a llama.cpp tree and
writes roundtrip.json beside this script: per template, its inferred-format markers, the
assistant part of the rendered text and the calls that went in. ToolCallRoundTripTests parses
each assistant part back and expects the same calls.

Usage: roundtrip-oracle.py [LLAMA_CPP_DIR]   (needs jinja2)
"""
import datetime, json, os, sys
import jinja2
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

LLAMA = sys.argv[1] if len(sys.argv) > 1 else "/tmp/dl/llama_cpp_python-0.3.36/vendor/llama.cpp"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "roundtrip.json")

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web.",
     "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
]
CALL_SETS = [
    [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}],
    [{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "search", "arguments": {"query": "rain gear"}}],
]


class Generation(Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.datetime(2026, 3, 14).strftime(fmt)
    return env


def render(template, messages, generation_prompt):
    return template.render(messages=messages, tools=TOOLS, add_generation_prompt=generation_prompt,
                           bos_token="<s>", eos_token="</s>", enable_thinking=False)


def main():
    env = environment()
    directory = os.path.join(LLAMA, "models", "templates")
    rows = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jinja"):
            continue
        source = open(os.path.join(directory, name), encoding="utf-8").read()
        try:
            template = env.from_string(source)
        except Exception as error:
            print(f"skip {name}: {error}", file=sys.stderr)
            continue
        for n, calls in enumerate(CALL_SETS):
            user = [{"role": "user", "content": "What's the weather?"}]
            tool_calls = [{"id": f"call{n}{i}abcd"[:9], "type": "function",
                           "function": {"name": c["name"], "arguments": c["arguments"]}} for i, c in enumerate(calls)]
            assistant = {"role": "assistant", "content": "", "tool_calls": tool_calls}
            try:
                prompt = render(template, user, True)
                base = render(template, user, False)
                full = render(template, user + [assistant], False)
            except Exception as error:
                print(f"skip {name} #{n}: {error}", file=sys.stderr)
                continue
            if not full.startswith(prompt):
                prompt = os.path.commonprefix([base, full])
            part = full[len(prompt):]
            rows.append({"template": name, "source_markers": markers(source), "text": part, "calls": calls})
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False, indent=1)
    print(f"{len(rows)} rows -> {OUT}")


MARKERS = ["DSML", "<atem:", "]<]minimax[>[", "'<|open|>'", "'<|sep|>'", ":opensource", "<tool_sep", "<|tool_call:begin|>", "<|function_call|>", "function call", "<|role_sep|>",
           "<param name=", "tool▁calls▁begin", "tool▁call▁begin｜>' + tool['function']['name']", "<|channel|>",
           "<minimax:tool_call>", "<seed:tool_call>", "<|tool_calls_section_begin|>", "<arg_key>", "<function=",
           "<parameter=", "<|START_ACTION|>", "[TOOL_CALLS]", "<|tool_call_start|>", "<|tool_call>",
           "<start_function_call>", "<|tools_prefix|>", "<TOOLCALL>", "<|action_start|>", "functools[",
           "<|tool_call|>", ">>>", "all", "<tool_call>", "<tool_calls>", "<|python_start|>", "func_name1(",
           "<|python_tag|>", "<|start_header_id|>", "\"parameters\"", "Action:", "tool_name"]


def markers(source):
    """The inference markers the template contains (the template itself stays in llama.cpp)."""
    return " ".join(m for m in MARKERS if m in source)


main()
