#!/usr/bin/env python3
"""Checks the embeddings endpoints of `loopl serve` with the real `openai` and `ollama` clients.

    embeddings_check.py --base-url http://127.0.0.1:PORT --api-key KEY --model NAME [--reference NAME] CHECK...

Runs each named CHECK in order and prints one line for it, `ok NAME: <detail>` or
`FAIL NAME: <why>`. Exits 0 when every check passed, 1 when one failed, 2 for a usage error.
`--base-url` is the server's root. `agree` compares the model's vectors with those of the served
model `--reference` (a `server` backend with `"embeddings": true`: llama-server's own
`/v1/embeddings`). Run it with the Python of scripts/sdk-clients (LOOPL_SDK_PYTHON).
"""

import base64
import math
import struct

import httpx
import ollama
import openai

import client_checks
from client_checks import CheckFailed, expect

TEXTS = ["The cat sat on the mat.", "Paris is the capital of France.", "def add(a, b): return a + b",
         "Quantum computers use qubits.", "hello"]
# A paraphrase of the first sentence, and one about something else.
ANCHOR = "A cat is sitting on the rug."
PARAPHRASE = "The cat sat on the mat."
UNRELATED = "Interest rates rose again at the central bank this quarter."
LONG = " ".join(["word"] * 400)


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def unit(vector, what):
    norm = math.sqrt(sum(x * x for x in vector))
    expect(abs(norm - 1) < 1e-4, "%s has length %.6f, not 1" % (what, norm))


class Checks:
    """The checks, one method each, against one served model."""

    def __init__(self, base_url, api_key, model, reference, timeout):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.reference = reference
        key = api_key if api_key not in ("", "none") else "none"
        self.openai = openai.OpenAI(base_url=self.base_url + "/v1", api_key=key, timeout=timeout, max_retries=0)
        headers = {"Authorization": "Bearer " + api_key} if api_key not in ("", "none") else {}
        self.ollama = ollama.Client(host=self.base_url, headers=headers, timeout=timeout)
        self.headers = headers
        self.timeout = timeout

    def vectors(self, model, texts):
        answer = self.openai.embeddings.create(model=model, input=texts)
        return [item.embedding for item in sorted(answer.data, key=lambda item: item.index)]

    def refused(self, status, ask):
        """Runs `ask`, which must fail with `status`; returns the error's text."""
        try:
            ask()
        except openai.APIStatusError as error:
            expect(error.status_code == status, "status %d, not %d: %s" % (error.status_code, status, error.message))
            return error.message
        except ollama.ResponseError as error:
            expect(error.status_code == status, "status %d, not %d: %s" % (error.status_code, status, error.error))
            return error.error
        raise CheckFailed("accepted, not refused with %d" % status)

    def openai_check(self):
        answer = self.openai.embeddings.create(model=self.model, input=TEXTS)
        expect(answer.object == "list" and len(answer.data) == len(TEXTS), "%d vectors for %d texts" % (len(answer.data), len(TEXTS)))
        expect([item.index for item in answer.data] == list(range(len(TEXTS))), "indices %r" % [item.index for item in answer.data])
        size = len(answer.data[0].embedding)
        for item in answer.data:
            expect(len(item.embedding) == size, "vector %d has %d dimensions, the first %d" % (item.index, len(item.embedding), size))
            unit(item.embedding, "vector %d" % item.index)
        expect(answer.usage.prompt_tokens > len(TEXTS) and answer.usage.total_tokens == answer.usage.prompt_tokens,
               "usage %r" % answer.usage)
        one = self.openai.embeddings.create(model=self.model, input=TEXTS[1])
        expect(len(one.data) == 1 and cosine(one.data[0].embedding, answer.data[1].embedding) > 0.9999, "a single string's vector differs")
        raw = httpx.post(self.base_url + "/v1/embeddings", headers=self.headers, timeout=self.timeout,
                         json={"model": self.model, "input": TEXTS[:2], "encoding_format": "base64"}).json()
        packed = base64.b64decode(raw["data"][1]["embedding"])
        decoded = struct.unpack("<%df" % (len(packed) // 4), packed)
        expect(len(decoded) == size and max(abs(a - b) for a, b in zip(decoded, answer.data[1].embedding)) < 1e-6,
               "the base64 vector is not the float one")
        same = self.openai.embeddings.create(model=self.model, input="hello", dimensions=size)
        refusal = self.refused(400, lambda: self.openai.embeddings.create(model=self.model, input="hello", dimensions=size // 2))
        expect("dimensions" in refusal and len(same.data[0].embedding) == size, "dimensions: %s" % refusal)
        return "%d unit vectors of %d dimensions, %d tokens; base64 the same; dimensions %d refused" % (
            len(TEXTS), size, answer.usage.prompt_tokens, size // 2)

    def ollama_check(self):
        answer = self.ollama.embed(model=self.model, input=TEXTS)
        expect(answer.model == self.model and len(answer.embeddings) == len(TEXTS), "%r gave %d vectors" % (answer.model, len(answer.embeddings)))
        for index, vector in enumerate(answer.embeddings):
            unit(vector, "vector %d" % index)
        expect(answer.prompt_eval_count > len(TEXTS) and answer.total_duration > 0 and answer.load_duration is not None,
               "counters %r %r %r" % (answer.prompt_eval_count, answer.total_duration, answer.load_duration))
        reference = self.vectors(self.model, TEXTS)
        worst = min(cosine(a, b) for a, b in zip(answer.embeddings, reference))
        older = self.ollama.embeddings(model=self.model, prompt=TEXTS[0])
        expect(cosine(older.embedding, reference[0]) > 0.9999, "/api/embeddings differs from /v1/embeddings")
        expect(worst > 0.9999, "the Ollama and OpenAI vectors differ: cosine %.6f" % worst)
        return "%d unit vectors, %d tokens, the OpenAI endpoint's and /api/embeddings' the same" % (len(TEXTS), answer.prompt_eval_count)

    def agree(self):
        expect(self.reference, "--reference names no model")
        mine, theirs = self.vectors(self.model, TEXTS), self.vectors(self.reference, TEXTS)
        cosines = [cosine(a, b) for a, b in zip(mine, theirs)]
        expect(len(mine) == len(theirs) == len(TEXTS), "%d and %d vectors" % (len(mine), len(theirs)))
        expect(min(cosines) >= 0.9999, "cosines with %s: %s" % (self.reference, ", ".join("%.6f" % c for c in cosines)))
        return "cosine with %s >= %.6f for %d texts" % (self.reference, min(cosines), len(TEXTS))

    def paraphrase(self):
        anchor, near, far = self.vectors(self.model, [ANCHOR, PARAPHRASE, UNRELATED])
        close, distant = cosine(anchor, near), cosine(anchor, far)
        expect(close > distant, "the paraphrase's cosine %.4f is not above the unrelated sentence's %.4f" % (close, distant))
        return "paraphrase %.4f > unrelated %.4f" % (close, distant)

    def too_long(self):
        refusal = self.refused(400, lambda: self.openai.embeddings.create(model=self.model, input=["short", LONG]))
        expect("400 tokens" in refusal, "the refusal gives no count: %s" % refusal)
        refused = self.refused(400, lambda: self.ollama.embed(model=self.model, input=LONG, truncate=False))
        cut = self.ollama.embed(model=self.model, input=LONG)
        expect(len(cut.embeddings) == 1 and cut.prompt_eval_count < 400, "truncated: %d tokens" % cut.prompt_eval_count)
        unit(cut.embeddings[0], "the truncated vector")
        return "refused (%s), truncated to %d tokens by default in /api/embed" % (refusal[:60], cut.prompt_eval_count)

    def not_enabled(self):
        refusal = self.refused(400, lambda: self.openai.embeddings.create(model=self.model, input="hello"))
        expect('"embeddings": true' in refusal, "the refusal does not name the key: %s" % refusal)
        return refusal[:80]


CHECKS = {
    "openai": Checks.openai_check,
    "ollama": Checks.ollama_check,
    "agree": Checks.agree,
    "paraphrase": Checks.paraphrase,
    "too-long": Checks.too_long,
    "not-enabled": Checks.not_enabled,
}


def main():
    client_checks.main("Checks loopl serve's embeddings with the openai and ollama clients.", CHECKS,
                       lambda args: Checks(args.base_url, args.api_key, args.model, args.reference, args.timeout),
                       (), "http://127.0.0.1:8080",
                       lambda parser: parser.add_argument("--reference", default="", help="the served model to compare with"))


if __name__ == "__main__":
    main()
