#!/usr/bin/env python3
"""Checks of `loopl serve`'s agent endpoint (/loopl/v1/runs, /loopl/v1/sessions) over raw HTTP,
standard library only.

    runs_check.py --port PORT [--key KEY] [--expected FILE] CHECK...

`--expected` is the output of `loopl run --json --tools calc --tool-choice required
--temperature 0 --seed 7 "What is 17*23?"` on the same model. Prints `ok NAME: detail` or
`FAIL NAME: why` per check; exits 1 when one failed.
"""

import argparse
import http.client
import json
import os
import stat
import sys
import time

PROMPT = "What is 17*23?"
LONG_PROMPT = "Count from 1 to 1000, one number per line, and nothing else."


class Failure(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Failure(why)


class Server:
    def __init__(self, port, key):
        self.port, self.key = port, key

    def headers(self, key=True):
        headers = {"Content-Type": "application/json"}
        if key and self.key:
            headers["Authorization"] = "Bearer " + self.key
        return headers

    def request(self, method, path, body=None, key=True):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=900)
        connection.request(method, path, body=None if body is None else json.dumps(body).encode(), headers=self.headers(key))
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), payload

    def open_run(self, body):
        """Starts a run; returns the response and a generator of its events."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=900)
        connection.request("POST", "/loopl/v1/runs", body=json.dumps(body).encode(), headers=self.headers())
        response = connection.getresponse()

        def events():
            while True:
                line = response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("data: "):
                    yield json.loads(line[6:])
        return response, events()


def calc_body(**extra):
    body = {"messages": [{"role": "user", "content": PROMPT}], "tools": ["calc"], "toolChoice": "required",
            "temperature": 0, "seed": 7}
    body.update(extra)
    return body


def normalized(events):
    """The events without their timings and random ids: metrics dropped, call ids and durations blanked."""
    kept = []
    for event in events:
        if event.get("event") == "metrics":
            continue
        text = json.dumps(event, sort_keys=True)
        for call_id in {c.get("id") for c in [event.get("toolCall") or {}] + (event.get("message") or {}).get("tool_calls", [])}:
            if call_id:
                text = text.replace(call_id, "CALL")
        event = json.loads(text)
        if "result" in event:
            event["result"]["durationMs"] = 0
            event["result"]["callId"] = "CALL"
        kept.append(event)
    return kept


def check_same_events(server, args):
    with open(args.expected) as file:
        expected = [json.loads(line) for line in file if line.strip()]
    response, events = server.open_run(calc_body())
    if response.status != 200:
        raise Failure("status %d: %s" % (response.status, response.read()[:300]))
    expect(response.getheader("Loopl-Run-Id", "").startswith("run_"), "no Loopl-Run-Id header")
    got = list(events)
    expect(normalized(got) == normalized(expected),
           "the endpoint's events differ from loopl run --json's:\n%s\n%s" % (normalized(got), normalized(expected)))
    session = response.getheader("Loopl-Session-Id")
    status, _, payload = server.request("GET", "/loopl/v1/sessions/" + session)
    expect(status == 200, "GET the session: %d %s" % (status, payload[:200]))
    saved = json.loads(payload)
    expect(saved["title"] == PROMPT and [m["role"] for m in saved["messages"]] == ["user", "assistant", "tool", "assistant"],
           "the saved session is %s" % saved)
    status, _, payload = server.request("GET", "/loopl/v1/sessions")
    listed = json.loads(payload)["data"]
    expect(status == 200 and listed[0]["id"] == session and listed[0]["model"], "the list is %s" % listed)
    if args.sessions_dir:
        mode = stat.S_IMODE(os.stat(os.path.join(args.sessions_dir, session + ".json")).st_mode)
        expect(mode == 0o600, "the session file's mode is %o" % mode)
    return "%d events, saved as %s" % (len(got), session)


def check_cancel_and_busy(server, args):
    response, events = server.open_run({"messages": [{"role": "user", "content": LONG_PROMPT}], "temperature": 0, "maxTokens": 2000})
    expect(response.status == 200, "status %d" % response.status)
    run, session = response.getheader("Loopl-Run-Id"), response.getheader("Loopl-Session-Id")
    seen = []
    for event in events:
        seen.append(event)
        if event.get("event") == "text":
            break
    status, _, payload = server.request("POST", "/loopl/v1/runs", {"session": session, "messages": [{"role": "user", "content": "hi"}]})
    expect(status == 409, "a second run on the busy session: %d %s" % (status, payload[:300]))
    busy = json.loads(payload)["error"]
    expect(status == 409 and busy["code"] == "session_busy" and "already running" in busy["message"], "a second run: %d %s" % (status, busy))
    status, _, payload = server.request("POST", "/loopl/v1/runs/%s/cancel" % run)
    expect(status == 200, "cancel: %d %s" % (status, payload))
    rest = list(events)
    expect(rest and rest[-1] == {"event": "finished", "iterations": 1, "reason": "cancelled"}, "the run ended with %s" % rest[-1:])
    status, _, payload = server.request("POST", "/loopl/v1/runs/%s/cancel" % run)
    expect(status == 404 and json.loads(payload)["error"]["code"] == "run_not_found", "a second cancel: %d %s" % (status, payload))
    return "refused: %s; cancelled after %d events" % (busy["message"], len(seen) + len(rest))


def check_bad_session(server, args):
    status, _, payload = server.request("POST", "/loopl/v1/runs", calc_body(session="no-such-session"))
    error = json.loads(payload)["error"]
    expect(status == 404 and error["code"] == "session_not_found", "an unknown session: %d %s" % (status, error))
    status, _, payload = server.request("POST", "/loopl/v1/runs", calc_body(session="../etc/passwd"))
    error = json.loads(payload)["error"]
    expect(status == 400 and error["param"] == "session", "a malformed session: %d %s" % (status, error))
    status, _, payload = server.request("GET", "/loopl/v1/sessions/no-such-session")
    expect(status == 404, "GET an unknown session: %d" % status)
    status, _, payload = server.request("DELETE", "/loopl/v1/sessions/no-such-session")
    expect(status == 404, "DELETE an unknown session: %d" % status)
    status, _, payload = server.request("POST", "/loopl/v1/runs", calc_body(tools=["shell"]))
    expect(status == 400 and "calc, time or files" in json.loads(payload)["error"]["message"], "an unknown tool: %d %s" % (status, payload))
    return json.loads(payload)["error"]["message"]


def check_missing_key(server, args):
    status, _, payload = server.request("POST", "/loopl/v1/runs", calc_body(), key=False)
    expect(status == 401 and json.loads(payload)["error"]["code"] == "invalid_api_key", "without the key: %d %s" % (status, payload))
    status, _, payload = server.request("GET", "/loopl/v1/sessions", key=False)
    expect(status == 401, "sessions without the key: %d" % status)
    for path in ["/", "/app.js", "/api.js", "/view.js", "/transcript.js", "/style.css", "/favicon.svg", "/favicon.ico"]:
        status, headers, payload = server.request("GET", path, key=False)
        expect(status == 200 and payload, "the page's %s without the key: %d" % (path, status))
    return "401 for the API, 200 for the page's files"


def check_mcp(server, args):
    status, _, payload = server.request("GET", "/loopl/v1/settings")
    settings = json.loads(payload)
    expect(status == 200 and settings["mcp"] == ["good"] and "calc" in settings["tools"], "the settings are %s" % settings)
    response, events = server.open_run({"messages": [{"role": "user", "content": "Echo the word hello."}], "mcp": ["good"],
                                        "toolChoice": "good_echo", "temperature": 0, "maxIterations": 1})
    if response.status != 200:
        raise Failure("status %d: %s" % (response.status, response.read()[:300]))
    got = list(events)
    finished = [e["result"] for e in got if e.get("event") == "toolFinished"]
    expect(finished and finished[0]["name"] == "good_echo" and not finished[0]["isError"], "the events are %s" % got)
    status, _, payload = server.request("POST", "/loopl/v1/runs", {"messages": [{"role": "user", "content": "Hi"}], "mcp": ["nope"]})
    expect(status == 400 and "No MCP server named 'nope'" in json.loads(payload)["error"]["message"], "an unknown server: %d %s" % (status, payload))
    return "good_echo returned %r" % finished[0]["content"]


def check_approve_run(server, args):
    """A scripted run calls calculator and current_time twice, both asking: "run" for the calculator
    lets its second call run unasked, while current_time is still asked about (and denied)."""
    response, events = server.open_run({"messages": [{"role": "user", "content": "Both, twice."}], "tools": ["calc", "time"]})
    expect(response.status == 200, "status %d" % response.status)
    run = response.getheader("Loopl-Run-Id")
    asked, seen = [], []
    for event in events:
        seen.append(event)
        if event.get("event") == "approvalRequested":
            call = event["toolCall"]
            asked.append(call["function"]["name"])
            status, _, payload = answer(server, run, call["id"], "run" if call["function"]["name"] == "calculator" else "deny")
            expect(status == 200, "answer: %d %s" % (status, payload))
    expect(asked == ["calculator", "current_time", "current_time"], "asked about %s in %s" % (asked, seen))
    results = [(e["result"]["name"], e["result"]["isError"]) for e in seen if e.get("event") == "toolFinished"]
    expect(results == [("calculator", False), ("current_time", True)] * 2, "the results are %s" % results)
    expect(seen[-1].get("event") == "finished", "the run ended with %s" % seen[-1:])
    return "asked about %s" % asked


def check_files_root(server, args):
    """A scripted run reads ../outside.txt, escape (a link out), chain0 (41 links) and inside.txt."""
    response, events = server.open_run({"messages": [{"role": "user", "content": "Read them."}], "tools": ["files"]})
    expect(response.status == 200, "status %d" % response.status)
    results = [e["result"] for e in events if e.get("event") == "toolFinished"]
    expect(len(results) == 4, "the results are %s" % results)
    for result, refusal in zip(results[:3], ["outside the tools' root", "outside the tools' root", "symbolic links"]):
        expect(result["isError"] and refusal in result["content"], "%s was not refused: %s" % (result["name"], result))
    expect(not results[3]["isError"] and results[3]["content"] == "inside words", "inside.txt: %s" % results[3])
    return "three refused, inside.txt read"


def check_delete(server, args):
    status, _, payload = server.request("GET", "/loopl/v1/sessions")
    listed = json.loads(payload)["data"]
    expect(listed, "no session to delete")
    status, _, payload = server.request("DELETE", "/loopl/v1/sessions/" + listed[0]["id"])
    expect(status == 200, "DELETE: %d %s" % (status, payload))
    status, _, _ = server.request("GET", "/loopl/v1/sessions/" + listed[0]["id"])
    expect(status == 404, "the deleted session answers %d" % status)
    return "deleted " + listed[0]["id"]


def until_asked(events):
    """The events up to and including the run's first approvalRequested."""
    seen = []
    for event in events:
        seen.append(event)
        if event.get("event") == "approvalRequested":
            return seen, event["toolCall"]
    raise Failure("the run ended without asking for approval: %s" % seen)


def answer(server, run, call_id, decision):
    return server.request("POST", "/loopl/v1/runs/%s/approvals/%s" % (run, call_id), {"decision": decision})


def rest_of_run(server, run, events, later="deny"):
    """The rest of the run's events, answering any later call with `later`."""
    rest = []
    for event in events:
        rest.append(event)
        if event.get("event") == "approvalRequested":
            answer(server, run, event["toolCall"]["id"], later)
    expect(rest and rest[-1].get("event") == "finished", "the run did not finish: %s" % rest[-3:])
    return rest


def first_result(events, call_id):
    results = [e["result"] for e in events if e.get("event") == "toolFinished" and e["result"]["callId"] == call_id]
    expect(results, "no result for the call %s in %s" % (call_id, events))
    return results[0]


def check_approve(server, args):
    response, events = server.open_run(calc_body(maxIterations=2))
    expect(response.status == 200, "status %d" % response.status)
    run = response.getheader("Loopl-Run-Id")
    _, call = until_asked(events)
    status, _, payload = answer(server, run, call["id"], "maybe")
    expect(status == 400 and json.loads(payload)["error"]["param"] == "decision", "a bad decision: %d %s" % (status, payload))
    status, _, payload = answer(server, run, "no-such-call", "once")
    expect(status == 404 and json.loads(payload)["error"]["code"] == "approval_not_found", "an unknown call: %d %s" % (status, payload))
    status, _, payload = answer(server, "run_nope", call["id"], "once")
    expect(status == 404 and json.loads(payload)["error"]["code"] == "run_not_found", "an unknown run: %d %s" % (status, payload))
    status, _, payload = answer(server, run, call["id"], "once")
    expect(status == 200 and json.loads(payload)["decision"] == "once", "approve: %d %s" % (status, payload))
    rest = rest_of_run(server, run, events)
    expect(rest[0] == {"event": "approvalAnswered", "callId": call["id"], "decision": "once"}, "after the answer: %s" % rest[:1])
    result = first_result(rest, call["id"])
    expect(not result["isError"] and [e for e in rest if e.get("event") == "toolStarted"], "the approved call: %s" % result)
    status, _, payload = answer(server, run, call["id"], "once")
    expect(status == 404, "an answer after the run: %d %s" % (status, payload))
    return "%s(%s) ran: %r" % (call["function"]["name"], call["function"]["arguments"], result["content"])


def check_deny(server, args):
    response, events = server.open_run(calc_body(maxIterations=2))
    expect(response.status == 200, "status %d" % response.status)
    run = response.getheader("Loopl-Run-Id")
    _, call = until_asked(events)
    status, _, payload = answer(server, run, call["id"], "deny")
    expect(status == 200, "deny: %d %s" % (status, payload))
    rest = rest_of_run(server, run, events)
    result = first_result(rest, call["id"])
    expect(result["isError"] and "The user denied this call." in result["content"], "the denied call: %s" % result)
    started = [e for e in rest if e.get("event") == "toolStarted" and e["toolCall"]["id"] == call["id"]]
    expect(not started, "the denied call started: %s" % started)
    return "the model read %r" % result["content"]


def check_approval_timeout(server, args):
    response, events = server.open_run(calc_body(maxIterations=1))
    expect(response.status == 200, "status %d" % response.status)
    run = response.getheader("Loopl-Run-Id")
    _, call = until_asked(events)
    rest = list(events)
    expect(rest and rest[0] == {"event": "approvalAnswered", "callId": call["id"], "decision": "deny"}, "unanswered: %s" % rest[:1])
    result = first_result(rest, call["id"])
    expect(result["isError"] and "The user denied this call." in result["content"], "the timed-out call: %s" % result)
    expect(rest[-1].get("event") == "finished", "the run ended with %s" % rest[-1:])
    status, _, payload = answer(server, run, call["id"], "once")
    expect(status == 404, "an answer after the timeout: %d %s" % (status, payload))
    return "denied after the timeout: %r" % result["content"]


def check_cancel_waiting(server, args):
    response, events = server.open_run(calc_body(maxIterations=2))
    run = response.getheader("Loopl-Run-Id")
    until_asked(events)
    status, _, payload = server.request("POST", "/loopl/v1/runs/%s/cancel" % run)
    expect(status == 200, "cancel: %d %s" % (status, payload))
    rest = list(events)
    expect(rest and rest[-1] == {"event": "finished", "iterations": 1, "reason": "cancelled"}, "the run ended with %s" % rest[-1:])
    expect(not [e for e in rest if e.get("event") == "approvalAnswered"], "a cancelled wait was answered: %s" % rest)
    # A client that hangs up while its run waits ends the run, long before the approval timeout.
    response, events = server.open_run(calc_body(maxIterations=2))
    session = response.getheader("Loopl-Session-Id")
    until_asked(events)
    response.close()
    # The probe is refused 409 while the session's run goes on, 400 (its unknown tool) once it ended.
    probe = calc_body(session=session, tools=["shell"])
    for _ in range(600):
        status, _, payload = server.request("POST", "/loopl/v1/runs", probe)
        if status != 409:
            expect(status == 400, "the probe: %d %s" % (status, payload))
            return "cancelled while waiting; a hang-up ended its waiting run"
        time.sleep(0.2)
    raise Failure("the run of a client that hung up still waits: %d %s" % (status, payload))


CHECKS = {"approve": check_approve, "cancel-waiting": check_cancel_waiting, "deny": check_deny, "approval-timeout": check_approval_timeout,
          "same-events": check_same_events, "cancel-busy": check_cancel_and_busy, "bad-session": check_bad_session,
          "missing-key": check_missing_key, "mcp": check_mcp, "delete": check_delete, "files-root": check_files_root,
          "approve-run": check_approve_run}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key")
    parser.add_argument("--expected")
    parser.add_argument("--sessions-dir")
    parser.add_argument("checks", nargs="+")
    args = parser.parse_args()
    server = Server(args.port, args.key)
    failed = False
    for name in args.checks:
        try:
            print("ok %s: %s" % (name, CHECKS[name](server, args)), flush=True)
        except Exception as error:  # a check's failure, or a broken connection
            failed = True
            print("FAIL %s: %s: %s" % (name, type(error).__name__, error), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
