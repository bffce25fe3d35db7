"""Drives a program through a pseudo-terminal, as a person at a keyboard would.

Usage: pty-driver.py STEPS_JSON PROGRAM [ARGS...]
STEPS_JSON is a list of [text_to_type, text_to_wait_for, seconds]; "^C" types Ctrl-C; a text to
wait for that starts with "re:" is a regular expression.
Prints everything the program wrote, then a last line "EXIT <status>".
"""
import json, os, pty, re, select, sys, time

steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""


def read(seconds, until=None):
    global out
    end = time.time() + seconds
    start = len(out)
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            out += chunk
            if until and until.startswith("re:"):
                if re.search(until[3:].encode(), out[start:]):
                    return
            elif until and until.encode() in out[start:]:
                return


for typed, wait_for, seconds in steps:
    if typed:
        os.write(fd, b"\x03" if typed == "^C" else typed.encode())
    read(seconds, wait_for or None)
read(5)
deadline = time.time() + 20
status = None
while time.time() < deadline:
    done, raw = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(raw)
        break
    read(0.2)
if status is None:
    os.kill(pid, 9)
    status = "killed"
sys.stdout.write(out.decode(errors="replace"))
print("\nEXIT", status)
