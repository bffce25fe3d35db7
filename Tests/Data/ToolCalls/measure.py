#!/usr/bin/env python3
"""Share of model outputs that `loopl parse` reads right, under each case's named format and under
--format auto.

usage: measure.py [--loopl PATH] [--misses] [FILE ...]

FILE defaults to heldout.json beside this script (llama-goldens.json has the same shape; its cases
that need what the command line cannot say, a prompt that opened thinking or parameter schemas,
are left out). A case is read right when content and reasoning (trimmed; no reasoning reads as
none) and the calls (names and arguments, in order) are what the case expects. PATH defaults to
.build/debug/loopl.
"""
import json
import os
import subprocess
import sys


def same(a, b):
    """JSON equality that does not take true for 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def read(loopl, case, fmt):
    command = [loopl, "parse", "--format", fmt]
    tools = case.get("tools")
    if tools is not None:
        command += ["--tools", ",".join(tools)]
    out = subprocess.run(command, input=case["text"].encode(), capture_output=True, check=True).stdout
    return json.loads(out)


def right(case, got):
    calls = [{"name": c["name"], "arguments": c["arguments"]} for c in got["tool_calls"]]
    return (got["content"] == case["content"].strip()
            and (got.get("reasoning") or None) == ((case["reasoning"] or "").strip() or None)
            and same(calls, case["tool_calls"]))


def main(argv):
    loopl, show, files = ".build/debug/loopl", False, []
    args = iter(argv)
    for arg in args:
        if arg == "--loopl":
            loopl = next(args)
        elif arg == "--misses":
            show = True
        else:
            files.append(arg)
    if not files:
        files = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "heldout.json")]
    cases = [c for f in files for c in json.load(open(f))["cases"]
             if "starts_in_reasoning" not in c and not isinstance(c.get("tools"), dict)]
    tally = {"named": [0, 0], "auto": [0, 0]}
    misses = []
    for case in cases:
        for mode, fmt in (("named", case["format"]), ("auto", "auto")):
            if mode == "auto" and case.get("auto") is False:
                continue
            got = read(loopl, case, fmt)
            tally[mode][1] += 1
            if right(case, got):
                tally[mode][0] += 1
            else:
                misses.append((mode, case["id"], got))
    for mode, (ok, total) in tally.items():
        print(f"{mode}: {ok}/{total} read right ({100.0 * ok / max(total, 1):.1f}%)")
    if show:
        for mode, name, got in misses:
            print(f"  miss [{mode}] {name}: {json.dumps(got, ensure_ascii=False)[:300]}")


if __name__ == "__main__":
    main(sys.argv[1:])
