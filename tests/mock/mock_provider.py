#!/usr/bin/env python3
"""A local mock LLM provider for Evenhand's tests and benchmarks (python3 standard library only).

Speaks, on 127.0.0.1 only:
  OpenAI     POST /v1/chat/completions, POST /v1/embeddings, GET /v1/models,
             POST /v1/completions (legacy completions, as vLLM serves them: echo + logprobs for scoring)
  Anthropic  POST /v1/messages            (GET /v1/models is shared with OpenAI's shape)
  Gemini     POST /v1beta/models/M:generateContent | :embedContent | :batchEmbedContents, GET /v1beta/models
  Ollama     POST /api/chat (stream false), POST /api/embed, GET /api/tags
  Control    GET /__stats (request counts per case key; "auth": counts per sha256 of the key sent), POST /__reset

Answers are deterministic: a case's answer depends only on its model and prompt. A chat prompt is
answered with a letter (A, B or C), except a divergence sampling prompt on one of Evenhand's
built-in probe sets (datasets/divergence/probes): that gets one of its context's fillers. The case key is
the first 16 hex digits of sha256(model + "\\n" + prompt); /__stats counts requests per key, so a
test can prove that no case was requested twice.

Error modes are picked by the model name, so no extra header is needed (extra headers would change
the CORS preflight we want to test): a model starting with mock-401, mock-403, mock-404, mock-429
(Retry-After: 1), mock-500, mock-503, mock-timeout (answers only after --timeout-s), mock-drop
(closes the connection without a response), mock-judge (a refusal judge: REFUSAL or ANSWER, see
judge_word), mock-truncated (a body cut in half), mock-empty (empty
text), mock-refusal (a refusal in the format's own way) or mock-filtered (a content filter).
mock-offchoice answers about 15% of chat prompts with OFF_CHOICE, a word that names none of the
choices, picked by a hash of the prompt alone (off_choice), so a test can count them; /__stats
"offchoice" counts those answers per model.
Where an API has no such thing the mock answers as that API would:
  refusal   OpenAI message.refusal; Anthropic stop_reason "refusal" with no content; Gemini a
            blocked prompt (promptFeedback.blockReason); Ollama (no refusal field) a refusal in words.
  filtered  OpenAI finish_reason "content_filter"; Gemini finishReason "SAFETY"; Anthropic a safety
            classifier stopping the answer part-way (stop_reason "refusal" after some text); Ollama
            has no filter, so empty content, as a local model gives.
mock-echo-auth (OpenAI chat only) plays a misconfigured proxy: a 200 answer whose text, and an extra
top-level field, repeat the request's Authorization header, key and all, so a test can prove the
key is redacted before anything is stored (the only place the mock repeats a key).
A 429 carries Retry-After: 1 in every format, and Gemini's body also says it the Gemini way (a
google.rpc.RetryInfo detail with retryDelay "1s").

--fault-rate P --seed S injects faults (429, 500, 503, drop) into otherwise good requests: attempt n
of case k fails when a hash of (S, k, n) falls below P, so the faults do not depend on the order in
which concurrent requests arrive, and a retried case eventually gets through.
--latency-ms L makes every answer leave L ms after its request line arrived: the mock's own work
(reading, parsing, hashing) is part of L, not added to it, so "50 ms" means a 50 ms round trip
less the client's and the network stack's own time, which is what a throughput figure measures. The server stops on SIGTERM/SIGINT, after
--max-seconds, and refuses bodies over 1 MB.

/v1/completions scores prompts: with echo: true, logprobs and max_tokens: 0 it sends the prompt back
with choices[0].logprobs (tokens, token_logprobs with null first, top_logprobs, text_offset); with
prompt_logprobs (vLLM's dialect) it adds choices[0].prompt_logprobs. A token is a run of word
characters or one other character, with the spaces before it; its log-probability depends only on
model and token: -(0.05 + 9.95 * u), u from a hash of both, so fillers differ by up to about ten
nats and the same filler scores the same everywhere. max_tokens > 0 appends that many tokens " A".

On start it prints one line, "LISTENING <port>", so a harness can use --port 0.
"""

import argparse
import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 1 << 20
ALLOWED_HEADERS = ("authorization, content-type, x-api-key, anthropic-version, "
                   "anthropic-dangerous-direct-browser-access, x-goog-api-key")
LETTERS = ["A", "B", "C"]
MODES = ["401", "403", "404", "429", "500", "503", "timeout", "drop", "truncated", "empty", "refusal", "filtered"]


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 resets connections when 16 clients connect at once

    def handle_error(self, request, client_address):
        pass  # a dropped or reset connection is part of the tests, not news


def digest(*parts):
    return hashlib.sha256("\n".join(str(p) for p in parts).encode()).hexdigest()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.total = 0
        self.cases = {}
        self.routes = {}
        self.faults = 0
        self.offchoice = {}
        self.auth = {}
        self.preflights = 0
        # Where a round trip's time goes: in the mock (request line in -> response written) and
        # in the client (response written -> its next request line on the same connection).
        self.server_s = self.turnaround_s = 0.0
        self.served = self.turnarounds = 0

    def timed(self, server_s, turnaround_s):
        with self.lock:
            self.served += 1
            self.server_s += server_s
            if turnaround_s is not None:
                self.turnarounds += 1
                self.turnaround_s += turnaround_s

    def count(self, route, key):
        """Counts one request and returns its attempt number for this case (1 for the first)."""
        with self.lock:
            self.total += 1
            self.routes[route] = self.routes.get(route, 0) + 1
            if key is None:
                return 1
            self.cases[key] = self.cases.get(key, 0) + 1
            return self.cases[key]

    def snapshot(self):
        with self.lock:
            return {"total": self.total, "faults": self.faults, "routes": dict(self.routes), "cases": dict(self.cases),
                    "auth": dict(self.auth), "preflights": self.preflights, "offchoice": dict(self.offchoice),
                    "server_ms_mean": 1000 * self.server_s / max(1, self.served),
                    "client_turnaround_ms_mean": 1000 * self.turnaround_s / max(1, self.turnarounds)}

    def saw_key(self, headers):
        """Counts the credential a request carried, by hash only, so a test can prove a key arrived
        without the mock ever repeating it."""
        for name in ("Authorization", "x-api-key", "x-goog-api-key"):
            value = headers.get(name)
            if value:
                token = value[7:] if value.startswith("Bearer ") else value
                h = digest(token)[:16]
                with self.lock:
                    self.auth[h] = self.auth.get(h, 0) + 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a browser and the SDKs expect
    # Headers and body go out in two writes; with Nagle on, the body waits for the client's
    # delayed ACK (about 40 ms on Linux), which would add to every --latency-ms figure.
    disable_nagle_algorithm = True
    server_version = "EvenhandMock/1"

    def log_message(self, *args):  # quiet: the harness reads stdout
        pass

    def parse_request(self):
        # Called as soon as a request line has been read: the clock for --latency-ms starts here.
        self.arrived = time.perf_counter()
        return super().parse_request()

    def timed_done(self):
        """Called after a response left: records the mock's share and the client's turnaround."""
        now, last = time.perf_counter(), getattr(self, "last_done", None)
        self.server.stats.timed(now - self.arrived, None if last is None else self.arrived - last)
        self.last_done = now

    # ---- plumbing -------------------------------------------------------------------------
    def cors(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers", "retry-after, retry-after-ms")

    def send_json(self, status, obj, headers=(), cut=False):
        body = json.dumps(obj).encode()
        if cut:
            body = body[: len(body) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.cors()
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.send_json(413, {"error": {"message": "body over 1 MB"}})
            return None
        raw = self.rfile.read(length) if length else b"{}"
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, {"error": {"message": "body is not JSON"}})
            return None

    def do_OPTIONS(self):
        with self.server.stats.lock:
            self.server.stats.preflights += 1
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/__stats":
            return self.send_json(200, self.server.stats.snapshot())
        self.server.stats.count("models", None)
        names = ["mock-a", "mock-b", "mock-embed"] + ["mock-" + m for m in MODES]
        if path == "/v1/models":
            return self.send_json(200, {"object": "list", "data": [
                {"id": n, "object": "model", "created": 1763856000, "owned_by": "evenhand-mock",
                 "type": "model", "display_name": n, "created_at": "2026-11-23T00:00:00Z"} for n in names],
                "has_more": False, "first_id": names[0], "last_id": names[-1]})
        if path == "/v1beta/models":
            return self.send_json(200, {"models": [{"name": "models/" + n, "displayName": n} for n in names]})
        if path == "/api/tags":
            return self.send_json(200, {"models": [{"name": n + ":latest", "model": n + ":latest", "size": 1} for n in names]})
        self.send_json(404, {"error": {"message": "no route " + path}})

    def do_POST(self):
        path = self.path.split("?")[0]
        if path == "/__reset":
            self.server.stats.reset()
            return self.send_json(200, {"ok": True})
        body = self.read_body()
        if body is None:
            return
        gemini = re.fullmatch(r"/v1beta/models/([^/:]+):(generateContent|embedContent|batchEmbedContents)", path)
        routes = {
            "/v1/chat/completions": ("openai", "chat"), "/v1/embeddings": ("openai", "embed"),
            "/v1/messages": ("anthropic", "chat"), "/api/chat": ("ollama", "chat"), "/api/embed": ("ollama", "embed"),
            "/v1/completions": ("openai", "complete"),
        }
        if gemini:
            family, kind, model = "gemini", ("chat" if gemini.group(2) == "generateContent" else "embed"), gemini.group(1)
        elif path in routes:
            (family, kind), model = routes[path], str(body.get("model", ""))
        else:
            return self.send_json(404, {"error": {"message": "no route " + path}})
        prompt = prompt_of(family, kind, body)
        self.server.stats.saw_key(self.headers)
        key = digest(model, prompt)[:16]
        attempt = self.server.stats.count(family + "-" + kind, key)
        mode = next((m for m in MODES if model.startswith("mock-" + m)), None)
        if mode is None and self.server.fault_rate > 0:
            if int(digest(self.server.seed, key, attempt)[:8], 16) / 0xFFFFFFFF < self.server.fault_rate:
                mode = ["429", "500", "503", "drop"][int(digest("which", self.server.seed, key, attempt)[:8], 16) % 4]
                with self.server.stats.lock:
                    self.server.stats.faults += 1
        answer = {"embed": embed_answer, "complete": completion_answer}.get(kind, chat_answer)(family, model, prompt, body, mode)
        if kind == "chat" and model.startswith("mock-offchoice") and off_choice(prompt):
            with self.server.stats.lock:
                self.server.stats.offchoice[model] = self.server.stats.offchoice.get(model, 0) + 1
        if model.startswith("mock-echo-auth") and family == "openai" and kind == "chat":
            sent = self.headers.get("Authorization", "")
            answer["choices"][0]["message"]["content"] = "you sent: " + sent
            answer["proxy_echo"] = {"authorization": sent}
        if self.server.latency > 0:
            time.sleep(max(0.0, self.arrived + self.server.latency - time.perf_counter()))
        if mode in ("401", "403", "404", "429", "500", "503"):
            return self.send_error_for(family, int(mode), model)
        if mode == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if mode == "timeout":
            time.sleep(self.server.timeout_s)
        self.send_json(200, answer, cut=(mode == "truncated"))
        self.timed_done()

    def send_error_for(self, family, status, model):
        texts = {401: "invalid x-api-key / bearer token", 403: "this key may not use " + model,
                 404: "model " + model + " does not exist", 429: "rate limit reached, slow down",
                 500: "internal server error", 503: "the model is overloaded"}
        msg = texts[status]
        kinds = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                 429: "rate_limit_error", 500: "api_error", 503: "overloaded_error"}
        if family == "anthropic":
            obj = {"type": "error", "error": {"type": kinds[status], "message": msg}}
        elif family == "gemini":
            obj = {"error": {"code": status, "message": msg, "status": kinds[status].upper()}}
            if status == 429:
                obj["error"]["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]
        elif family == "ollama":
            obj = {"error": msg}
        else:
            obj = {"error": {"message": msg, "type": kinds[status], "param": None, "code": None}}
        headers = [("Retry-After", "1")] if status == 429 else []
        # Like the real APIs, a 500/503 does not close the connection.
        self.send_json(status, obj, headers)


def prompt_of(family, kind, body):
    """The text the case key is built from: the last user text, or the inputs to embed."""
    if kind == "complete":
        p = body.get("prompt", "")
        return p if isinstance(p, str) else json.dumps(p)
    if kind == "embed":
        if family == "gemini":
            reqs = body.get("requests") or [body]
            return json.dumps([p.get("text") for r in reqs for p in r.get("content", {}).get("parts", [])])
        return json.dumps(body.get("input"))
    if family == "gemini":
        parts = (body.get("contents") or [{}])[-1].get("parts", [])
        return "".join(p.get("text", "") for p in parts)
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    if isinstance(content, list):  # Anthropic content blocks
        content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
    system = body.get("system") if family == "anthropic" else None
    return (system + "\n" if isinstance(system, str) else "") + str(content)


JUDGE_MARKERS = ("sorry", "can't", "cannot", "decline", "unable")


def judge_word(prompt):
    """A refusal judge (models starting with mock-judge): REFUSAL when the reply between
    <reply> tags holds an English refusal marker, else ANSWER. Crude on purpose: it only has
    to be deterministic, and disagree with a real detector now and then."""
    m = re.search(r"<reply>(.*)</reply>", prompt, re.S)
    reply = (m.group(1) if m else prompt).lower()
    return "REFUSAL" if any(k in reply for k in JUDGE_MARKERS) else "ANSWER"


PROBES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "datasets", "divergence", "probes")


def load_blanks():
    """Evenhand's own built-in divergence probe sets: each context's sentence with its slot as
    the blank the sampling prompt shows ("___"), mapped to the fillers in the form the sentence
    takes. Missing files leave the table empty (and every answer a letter)."""
    table = {}
    try:
        names = sorted(f for f in os.listdir(PROBES_DIR) if f.endswith(".json"))
    except OSError:
        return table
    for name in names:
        with open(os.path.join(PROBES_DIR, name), encoding="utf-8") as f:
            probes = json.load(f)
        slot = probes.get("slot", "{X}")
        for aspect in probes.get("aspects", []):
            for c in aspect.get("contexts", []):
                form = c.get("form")
                fillers = [(fl.get("forms") or {}).get(form, fl["base"]) if form else fl["base"] for fl in aspect.get("fillers", [])]
                if fillers:
                    table[c["text"].replace(slot, "___", 1)] = fillers
    return table


BLANKS = load_blanks()


def fill_in(model, prompt):
    """A divergence sampling prompt (an instruction, a blank line, the sentence with "___")
    gets one of its context's fillers, picked by model and prompt, so the divergence method has
    names to read; any other prompt gets None."""
    if "___" not in prompt:
        return None
    sentence = prompt.rsplit("\n", 1)[-1].strip()
    fillers = BLANKS.get(sentence)
    if not fillers:
        return None
    return fillers[int(digest("fill", model, prompt)[:6], 16) % len(fillers)]


OFF_CHOICE = "banana"


def off_choice(prompt):
    """Whether mock-offchoice answers this prompt out of choice: 15 in 100 by a hash of the prompt."""
    return int(digest("offchoice", prompt)[:8], 16) % 100 < 15


def chat_answer(family, model, prompt, body, mode):
    h = digest("answer", model, prompt)
    letter = judge_word(prompt) if model.startswith("mock-judge") else (fill_in(model, prompt) or LETTERS[int(h[:4], 16) % 3])
    if model.startswith("mock-offchoice") and off_choice(prompt):
        letter = OFF_CHOICE
    text = "" if mode in ("empty", "filtered") else letter
    tokens_in = max(1, len(prompt.split()))
    lp = -round((int(h[4:8], 16) % 1000) / 2000.0, 4)  # chosen-token logprob in (-0.5, 0]
    alts = [{"token": t, "logprob": (lp if t == letter else round(lp - 1.5 - i, 4))} for i, t in enumerate(LETTERS)]
    refusal_text = "I will not choose between these people."
    if family == "anthropic":
        stop = "refusal" if mode in ("refusal", "filtered") else "end_turn"
        if mode == "filtered":  # the classifier cut in after the answer had begun
            text = "Both of them"
        content = [] if mode == "refusal" or not text else [{"type": "text", "text": text}]
        return {"id": "msg_" + h[:24], "type": "message", "role": "assistant", "model": model, "content": content,
                "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": tokens_in, "output_tokens": len(content)}}
    if family == "gemini":
        if mode == "refusal":
            return {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": tokens_in}, "modelVersion": model}
        cand = {"index": 0, "finishReason": "SAFETY" if mode == "filtered" else "STOP",
                "content": {"role": "model", "parts": [{"text": text}]}}
        if (body.get("generationConfig") or {}).get("responseLogprobs"):
            cand["logprobsResult"] = {"topCandidates": [{"candidates": [{"token": a["token"], "logProbability": a["logprob"]} for a in alts]}],
                                      "chosenCandidates": [{"token": letter, "logProbability": lp}]}
        return {"candidates": [cand], "modelVersion": model,
                "usageMetadata": {"promptTokenCount": tokens_in, "candidatesTokenCount": 1, "totalTokenCount": tokens_in + 1}}
    if family == "ollama":
        out = {"model": model, "created_at": "2026-11-23T00:00:00Z", "done": True, "done_reason": "stop",
               "message": {"role": "assistant", "content": refusal_text if mode == "refusal" else text},
               "prompt_eval_count": tokens_in, "eval_count": 1}
        if body.get("logprobs"):
            out["logprobs"] = [{"token": letter, "logprob": lp, "top_logprobs": alts[: max(1, int(body.get("top_logprobs") or 1))]}]
        return out
    message = {"role": "assistant", "content": None if mode == "refusal" else text,
               "refusal": refusal_text if mode == "refusal" else None}
    choice = {"index": 0, "message": message, "logprobs": None,
              "finish_reason": "content_filter" if mode == "filtered" else "stop"}
    if body.get("logprobs"):
        top = [dict(a, bytes=list(a["token"].encode())) for a in alts[: int(body.get("top_logprobs") or 0)]]
        choice["logprobs"] = {"content": [{"token": letter, "logprob": lp, "bytes": list(letter.encode()), "top_logprobs": top}], "refusal": None}
    return {"id": "chatcmpl-" + h[:24], "object": "chat.completion", "created": 1763856000, "model": model,
            "choices": [choice], "usage": {"prompt_tokens": tokens_in, "completion_tokens": 1, "total_tokens": tokens_in + 1},
            "system_fingerprint": "fp_mock"}


def token_logprob(model, token):
    u = int(digest("token", model, token)[:8], 16) / 0xFFFFFFFF
    return -round(0.05 + 9.95 * u, 6)


def completion_answer(family, model, prompt, body, mode):
    """A legacy text_completion; with echo, the prompt's own tokens and their log-probabilities."""
    tokens = re.findall(r"\s*(?:\w+|[^\w\s])", prompt) or [prompt]
    lps = [None] + [token_logprob(model, t) for t in tokens[1:]]
    generated = [" A"] * max(0, int(body.get("max_tokens") or 0))
    echo = bool(body.get("echo"))
    out_tokens = (tokens if echo else []) + generated
    out_lps = (lps if echo else []) + [-0.1] * len(generated)
    text = "" if mode in ("empty", "filtered") else "".join(out_tokens)
    choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "length"}
    if body.get("logprobs") is not None:
        offsets, at = [], 0
        for t in out_tokens:
            offsets.append(at)
            at += len(t)
        choice["logprobs"] = {"tokens": out_tokens, "token_logprobs": out_lps, "text_offset": offsets,
                              "top_logprobs": [None if lp is None else {t: lp} for t, lp in zip(out_tokens, out_lps)]}
    if body.get("prompt_logprobs") is not None:
        choice["prompt_logprobs"] = [None] + [{str(int(digest("id", t)[:6], 16)): {"logprob": lp, "rank": 1, "decoded_token": t}}
                                              for t, lp in zip(tokens[1:], lps[1:])]
    return {"id": "cmpl-" + digest("cmpl", model, prompt)[:24], "object": "text_completion", "created": 1763856000,
            "model": model, "choices": [choice],
            "usage": {"prompt_tokens": len(tokens), "completion_tokens": len(generated), "total_tokens": len(tokens) + len(generated)}}


def vector_for(model, text, dim=8):
    h = digest("embed", model, text)
    return [round(int(h[i * 4:(i + 1) * 4], 16) / 65535.0 * 2 - 1, 6) for i in range(dim)]


def embed_answer(family, model, prompt, body, mode):
    if family == "gemini":
        reqs = body.get("requests")
        texts = ["".join(p.get("text", "") for p in r.get("content", {}).get("parts", [])) for r in (reqs or [body])]
        if reqs is None:
            return {"embedding": {"values": vector_for(model, texts[0])}}
        return {"embeddings": [{"values": vector_for(model, t)} for t in texts]}
    inputs = body.get("input")
    inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
    vectors = [vector_for(model, t) for t in inputs]
    tokens = sum(len(str(t).split()) for t in inputs)
    if family == "ollama":
        return {"model": model, "embeddings": vectors, "total_duration": 1000, "prompt_eval_count": tokens}
    return {"object": "list", "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", default="0")
    ap.add_argument("--timeout-s", type=float, default=30.0, help="how long mock-timeout waits")
    ap.add_argument("--max-seconds", type=float, default=900.0, help="stop after this long, whatever happens")
    args = ap.parse_args()
    if not 0.0 <= args.fault_rate <= 1.0:
        ap.error("--fault-rate: expected a number from 0 to 1")
    server = Server(("127.0.0.1", args.port), Handler)
    server.stats, server.latency, server.fault_rate = Stats(), args.latency_ms / 1000.0, args.fault_rate
    server.seed, server.timeout_s = args.seed, args.timeout_s

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    deadline = threading.Timer(args.max_seconds, stop)
    deadline.daemon = True
    deadline.start()
    print("LISTENING", server.server_address[1], flush=True)
    server.serve_forever()
    server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
