"""What the SDK check scripts share: failing a check, excerpts, and running named checks.

A script defines a `Checks` class (one method per check) and a table from check names to its
methods, then calls `main`. Each check prints `ok NAME: detail` or `FAIL NAME: why`; the exit
status is 1 when one failed, 2 for a wrong command line.
"""

import argparse
import sys


class CheckFailed(Exception):
    """A check's expectation that the server did not meet; its message says which."""


def expect(condition, why):
    if not condition:
        raise CheckFailed(why)


def short(text, limit=48):
    """`text` as a quoted excerpt for a detail line."""
    text = "" if text is None else str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


def run(table, checks, name, status_errors):
    """Runs one check; prints its line and returns whether it passed."""
    try:
        passed, text = True, table[name](checks)
    except CheckFailed as failure:
        passed, text = False, str(failure)
    except status_errors as error:
        passed, text = False, "the server answered %d: %s" % (error.status_code, error.message)
    except Exception as error:  # a connection error, or an answer the SDK could not read
        passed, text = False, "%s: %s" % (type(error).__name__, error)
    line = "%s %s: %s" % ("ok" if passed else "FAIL", name, text)
    print(line.replace("\r", "\\r").replace("\n", "\\n"), flush=True)
    return passed


def run_each(table, names, *args):
    """Runs the named checks of `table` on `args`, one line each (`ok NAME: detail` or
    `FAIL NAME: why`), and exits 1 when one failed."""
    failed = False
    for name in names:
        try:
            print("ok %s: %s" % (name, table[name](*args)), flush=True)
        except Exception as error:  # a check's failure or a broken connection: both fail it
            failed = True
            print("FAIL %s: %s: %s" % (name, type(error).__name__, error), flush=True)
    raise SystemExit(1 if failed else 0)


def main(description, table, make, status_errors, base_url_example, extra=lambda parser: None):
    """Parses the command line (`--base-url`, `--api-key`, `--model`, `--timeout`, what `extra`
    adds, then check names), runs the checks on `make(args)` and exits with their verdict."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. " + base_url_example)
    parser.add_argument("--api-key", default="none", help="the server's key; 'none' or empty when it has none")
    parser.add_argument("--model", required=True, help="the model id to ask for")
    parser.add_argument("--timeout", type=float, default=120, help="seconds for each request (default 120)")
    extra(parser)
    parser.add_argument("checks", nargs="+", metavar="CHECK", help="one of: " + ", ".join(table))
    args = parser.parse_args()
    unknown = [name for name in args.checks if name not in table]
    if unknown:
        parser.error("unknown check(s) %s; the checks are: %s" % (", ".join(unknown), ", ".join(table)))
    checks = make(args)
    results = [run(table, checks, name, status_errors) for name in args.checks]
    sys.exit(0 if all(results) else 1)
