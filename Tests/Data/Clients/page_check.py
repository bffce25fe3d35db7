#!/usr/bin/env python3
"""Checks of the transcript page that `loopl serve` serves at `/`, in headless Chromium driven by
Selenium (scripts/browser installs both).

    page_check.py --url URL --chromium PATH --driver PATH --screenshots DIR [--cases FILE] [--key KEY] CHECK...

Prints `ok NAME: detail` or `FAIL NAME: why` per check; exits 1 when one failed. A screenshot of
each state goes to DIR/NAME.png.
"""

import argparse
import json
import os
import re
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

PROMPT = "What is 17*23?"
LONG_PROMPT = "Write a long story about a dragon who learns to read."
SLOW = 900  # seconds: the default model on a busy machine


class Failure(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Failure(why)


class Page:
    def __init__(self, args):
        self.args = args
        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,720", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=args.driver), options=options)
        self.logs = []

    def open(self):
        self.driver.get(self.args.url)
        self.wait(lambda d: d.execute_script("return document.querySelectorAll('#model option').length") > 0, 60, "the model picker")

    def wait(self, condition, seconds, what):
        try:
            # An element the page re-rendered while the condition read it is read again.
            return WebDriverWait(self.driver, seconds, poll_frequency=0.2,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(condition)
        except Exception as error:
            self.shot("timeout")
            raise Failure("waited %d s for %s (%s); the transcript: %s" % (seconds, what, type(error).__name__, self.text("#transcript")))

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector):
        nodes = self.all(selector)
        return nodes[0].text if nodes else ""

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.args.screenshots, name + ".png"))

    def collect_logs(self):
        self.logs += self.driver.get_log("browser")

    def send(self, prompt):
        box = self.find("#prompt")
        box.click()
        box.send_keys(prompt)
        box.send_keys(Keys.ENTER)

    def close(self):
        self.driver.quit()


def check_folding(page, args):
    with open(args.cases) as file:
        cases = json.load(file)
    page.open()
    script = """
const [cases, done] = arguments;
import('/transcript.js').then(({ Transcript, comparable }) => {
  done(cases.map((c) => {
    const transcript = new Transcript();
    const changes = [];
    for (const step of c.steps) {
      if ('user' in step) transcript.user(step.user);
      else if ('note' in step) transcript.note(step.note);
      else changes.push(transcript.apply(step.event));
    }
    return { items: comparable(transcript.items), changes };
  }));
}).catch((error) => done({ error: String(error) }));
"""
    results = page.driver.execute_async_script(script, cases)
    expect(isinstance(results, list), "the module failed: %s" % results)
    for case, result in zip(cases, results):
        expected_changes = [step["changed"] for step in case["steps"] if "event" in step]
        expect(result["changes"] == expected_changes, "%s: changes %s, Swift %s" % (case["name"], result["changes"], expected_changes))
        expect(result["items"] == case["items"], "%s: items\n%s\nSwift\n%s" % (case["name"], result["items"], case["items"]))
    page.collect_logs()
    return "%d cases fold alike" % len(cases)


def check_offline(page, args):
    page.open()
    entries = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => [e.name, e.transferSize || e.encodedBodySize || 0])")
    origin = args.url.rstrip("/")
    outside = [name for name, _ in entries if not name.startswith(origin)]
    expect(not outside, "the page requested other origins: %s" % outside)
    total = sum(size for _, size in entries)
    html = len(page.driver.page_source.encode())
    expect(total + html < 150 * 1024, "the page weighs %d bytes" % (total + html))
    page.collect_logs()
    return "%d requests, all to %s, %d bytes" % (len(entries), origin, total + html)


def check_picker(page, args):
    """The picker says the model is unloaded, and loaded once it is, when it is used again."""
    page.open()
    labels = lambda: page.driver.execute_script("return [...document.querySelectorAll('#model option')].map((o) => o.textContent)")
    first = labels()
    expect(first == ["llama (unloaded)", "gpt-4o-mini (unloaded)"], "before a request: %r" % first)
    request = urllib.request.Request(args.url.rstrip("/") + "/loopl/v1/models/llama/load", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=SLOW) as response:
        expect(response.status == 200, "the load: %d" % response.status)
    page.find("#prompt").click()
    page.find("#model").click()
    page.wait(lambda d: labels() == ["llama (loaded)", "gpt-4o-mini (loaded)"], 30, "the loaded state in the picker")
    page.collect_logs()
    return "%s, then %s" % (first, labels())


def check_calculator(page, args):
    page.open()
    calc = page.find("#tool-calc")
    expect(page.find("label[for='tool-calc']").text == "calc", "the calculator's checkbox has no label")
    calc.click()
    expect(page.find("#tool-choice").get_attribute("value") == "required" and page.find("#temperature").get_attribute("value") == "0",
           "switching a tool on did not take scripts/agent's defaults")
    page.send(PROMPT)
    page.wait(lambda d: page.text(".user") == PROMPT, 30, "the user bubble")
    # Only what changed is drawn again: the bubble, and the card once it has its result, stay the same nodes.
    page.driver.execute_script("document.querySelector('#transcript > .user').keptNode = true")
    page.shot("calculator-sent")
    page.wait(lambda d: page.all(".tool .ok"), SLOW, "the calculator card with its ✓")
    page.driver.execute_script("document.querySelector('#transcript > .tool').keptNode = true")
    card = page.find(".tool")
    expect("calculator" in card.find_element(By.CSS_SELECTOR, "summary").text, "the card reads %r" % card.text)
    page.wait(lambda d: page.text("#status").startswith("answered"), SLOW, "the answer")
    kept = page.driver.execute_script(
        "return ['.user', '.tool'].map((kind) => document.querySelector('#transcript > ' + kind).keptNode === true)")
    expect(kept == [True, True], "the bubble and the card were drawn again though they did not change: %s" % kept)
    card = page.find(".tool")
    card.find_element(By.CSS_SELECTOR, "summary").click()
    page.wait(lambda d: page.find(".tool").get_attribute("open") is not None, 10, "the card to expand")
    card = page.find(".tool")
    arguments = card.find_element(By.CSS_SELECTOR, "pre.arguments").text
    result = card.find_element(By.CSS_SELECTOR, "pre.result").text
    expect("17*23" in arguments and "391" in result, "the card shows %r and %r" % (arguments, result))
    order = page.driver.execute_script(
        "return [...document.querySelectorAll('#transcript > *')].map((n) => n.className)")
    expect(order.index("user") < order.index("tool") < len(order) - 1 - order[::-1].index("assistant"),
           "the transcript's order is %s" % order)
    ttft, speed = page.text("#ttft"), page.text("#speed")
    used = page.find("#context").get_attribute("value")
    expect(re.fullmatch(r"\d+", ttft) and re.fullmatch(r"[\d.]+", speed) and float(used) > 0,
           "the meter shows TTFT %r, speed %r, context %r" % (ttft, speed, used))
    page.shot("calculator")
    page.collect_logs()
    return "card %s → %s; TTFT %s ms, %s tok/s, context %s" % (arguments.replace("\n", " "), result, ttft, speed, page.text("#context-text"))


def check_reload(page, args):
    page.driver.refresh()
    page.wait(lambda d: page.text(".user") == PROMPT and page.all(".tool .ok"), 30, "the conversation after a reload")
    current = page.all("#sessions button[aria-current='true']")
    expect(current and current[0].text == PROMPT, "the sidebar does not mark the conversation: %s" % page.text("#sessions"))
    page.shot("reload")
    page.collect_logs()
    return "the sidebar shows %r" % current[0].text


def check_stop(page, args):
    page.find("#new-session").click()
    page.wait(lambda d: not page.all(".user"), 10, "a new conversation")
    if page.find("#tool-calc").is_selected():
        page.find("#tool-calc").click()
    # Greedy, this prompt runs to the token limit on the default model, so Stop comes mid-answer.
    page.driver.execute_script("document.getElementById('tool-choice').value = 'auto'; document.getElementById('temperature').value = '0'")
    tokens = page.find("#max-tokens")
    tokens.clear()
    tokens.send_keys("2000")
    page.send(LONG_PROMPT)
    page.wait(lambda d: len(page.text(".assistant")) > 0, SLOW, "the answer to start")
    page.find("#stop").click()
    page.wait(lambda d: page.text("#status").startswith("cancelled"), 120, "the run to end cancelled")
    expect(not page.find("#send").get_attribute("disabled"), "Send stays disabled after the stop")
    page.shot("stop")
    page.collect_logs()
    return "%s, %d characters shown" % (page.text("#status"), len(page.text(".assistant")))


def pending(page):
    return page.all(".approval .buttons button")


# Denies any call still waiting and says whether the run has ended; the page redraws its cards on
# each event, so the clicks are the page's own.
DENY_THE_REST = """
for (const later of document.querySelectorAll('.approval .buttons button.deny:not(:disabled)')) later.click();
return !document.getElementById('send').disabled && !['running', 'stopping'].includes(document.getElementById('status').textContent);
"""


def decide_and_finish(page, button):
    """Clicks `button` on the first waiting call, denies any later one, and waits for the run's end."""
    page.wait(lambda d: pending(page), SLOW, "a call that waits for approval")
    card = page.find(".approval")
    arguments = card.find_element(By.CSS_SELECTOR, "pre.arguments").text
    expect("\n" in arguments and '"expression"' in arguments, "the arguments are not pretty-printed: %r" % arguments)
    page.shot("approval-" + button)
    card.find_element(By.CSS_SELECTOR, "button." + button).click()

    page.wait(lambda d: d.execute_script(DENY_THE_REST), SLOW, "the run to end")
    return arguments


def new_calc_session(page):
    page.find("#new-session").click()
    page.wait(lambda d: not page.all(".user"), 10, "a new conversation")
    if not page.find("#tool-calc").is_selected():
        page.find("#tool-calc").click()
    page.send(PROMPT)


def check_approval(page, args):
    page.open()
    new_calc_session(page)
    arguments = decide_and_finish(page, "deny")
    first = page.find(".approval")
    expect(first.find_element(By.CSS_SELECTOR, ".decision").text == "Denied" and not first.find_elements(By.CSS_SELECTOR, "button"),
           "the denied card reads %r" % first.text)
    card = page.find(".tool")
    expect(card.find_elements(By.CSS_SELECTOR, ".bad") and not page.all(".tool .ok"), "the denied call's card: %r" % card.text)
    card.find_element(By.CSS_SELECTOR, "summary").click()
    result = page.find(".tool pre.result").text
    expect("The user denied this call." in result, "the denied call's result is %r" % result)
    page.shot("approval-denied")
    new_calc_session(page)
    decide_and_finish(page, "once")
    first = page.find(".approval")
    expect(first.find_element(By.CSS_SELECTOR, ".decision").text == "Approved", "the approved card reads %r" % first.text)
    card = page.find(".tool")
    expect(card.find_elements(By.CSS_SELECTOR, ".ok"), "the approved call's card: %r" % card.text)
    card.find_element(By.CSS_SELECTOR, "summary").click()
    ran = page.find(".tool pre.result").text
    order = page.driver.execute_script("return [...document.querySelectorAll('#transcript > *')].map((n) => n.className)")
    expect(order.index("approval") < order.index("tool"), "the transcript's order is %s" % order)
    page.shot("approval-approved")
    page.collect_logs()
    return "denied %s → %r; approved → %r" % (arguments.replace("\n", " "), result, ran)


HOSTILE = '<img src=x onerror="window.pwned=1">'


def check_untrusted(page, args):
    """A prompt (so the session's title), a tool's result and an answer that hold HTML show as text and run nothing."""
    page.open()
    page.find("#tool-files").click()
    prompt = HOSTILE + " read it"
    page.send(prompt)
    page.wait(lambda d: page.text("#status").startswith("answered"), 60, "the answer")
    page.wait(lambda d: any(prompt in b.text for b in page.all("#sessions button.open")), 30, "the session in the sidebar")
    page.find(".tool summary").click()
    page.wait(lambda d: page.all(".tool pre.result"), 10, "the card to expand")
    time.sleep(0.5)  # time for an image that failed to load to fire its onerror
    shown = {"the prompt": page.text(".user"), "the result": page.text(".tool pre.result"), "the answer": page.text(".assistant"),
             "the title": page.text("#sessions button.open")}
    for what, text in shown.items():
        expect(HOSTILE in text, "%s does not show the HTML as text: %r" % (what, text))
    expect(not page.all("img"), "the page holds %d img elements" % len(page.all("img")))
    expect(page.driver.execute_script("return window.pwned === undefined"), "an onerror handler ran")
    page.shot("untrusted")
    page.collect_logs()
    return "shown as text in %s" % ", ".join(shown)


def check_run_button(page, args):
    """Approve for this run on the calculator's card: its second call runs unasked; current_time is asked about each time."""
    page.find("#new-session").click()
    page.wait(lambda d: not page.all(".user"), 10, "a new conversation")
    for tool in ["#tool-calc", "#tool-time"]:
        if not page.find(tool).is_selected():
            page.find(tool).click()
    page.send("Both, twice.")
    page.wait(lambda d: pending(page), 60, "a call that waits for approval")
    card = page.find(".approval")
    expect(card.find_element(By.CSS_SELECTOR, ".name").text == "calculator", "the first card reads %r" % card.text)
    card.find_element(By.CSS_SELECTOR, "button.run").click()
    page.wait(lambda d: d.execute_script(DENY_THE_REST), 60, "the run to end")
    cards = [(c.find_element(By.CSS_SELECTOR, ".name").text, c.find_element(By.CSS_SELECTOR, ".decision").text) for c in page.all(".approval")]
    expect(cards == [("calculator", "Approved for this run"), ("current_time", "Denied"), ("current_time", "Denied")],
           "the approval cards are %s" % cards)
    results = [(c.find_element(By.CSS_SELECTOR, ".name").text, bool(c.find_elements(By.CSS_SELECTOR, ".ok"))) for c in page.all(".tool")]
    expect(results == [("calculator", True)] * 2, "the tool cards (a denied call has none) are %s" % results)
    page.shot("approval-run")
    page.collect_logs()
    return "asked about %s" % [name for name, _ in cards]


def check_key(page, args):
    page.driver.get(args.url)
    page.wait(lambda d: d.execute_script("return document.getElementById('key-dialog').open"), 30, "the key dialog")
    page.find("#key").send_keys(args.key)
    page.find("#key-form button").click()
    page.wait(lambda d: d.execute_script("return document.querySelectorAll('#model option').length") > 0, 30, "the models after the key")
    page.driver.refresh()
    page.wait(lambda d: d.execute_script("return document.querySelectorAll('#model option').length") > 0, 30, "the models after a reload")
    expect(not page.driver.execute_script("return document.getElementById('key-dialog').open"), "the key was asked for again")
    return "asked once, kept in session storage"


def check_console(page, args):
    page.collect_logs()
    errors = [entry for entry in page.logs if entry.get("level") == "SEVERE"]
    expect(not errors, "the console has errors: %s" % errors)
    return "%d messages, no error" % len(page.logs)


CHECKS = {"folding": check_folding, "offline": check_offline, "calculator": check_calculator, "reload": check_reload,
          "stop": check_stop, "approval": check_approval, "key": check_key, "console": check_console,
          "untrusted": check_untrusted, "run-button": check_run_button, "picker": check_picker}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--driver", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--cases")
    parser.add_argument("--key")
    parser.add_argument("checks", nargs="+")
    args = parser.parse_args()
    page = Page(args)
    failed = False
    try:
        for name in args.checks:
            started = time.monotonic()
            try:
                print("ok %s: %s" % (name, CHECKS[name](page, args)), flush=True)
            except Exception as error:  # a check's failure, or the browser's
                failed = True
                print("FAIL %s: %s: %s" % (name, type(error).__name__, error), flush=True)
            print("   (%s took %.0f s)" % (name, time.monotonic() - started), flush=True)
    finally:
        page.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
