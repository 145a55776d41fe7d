#!/usr/bin/env python3
"""Checks the mock provider against clients we did not write: the official `openai` and
`anthropic` Python SDKs. Run inside a virtualenv that has both (the cargo test
`mock_provider::official_sdks_accept_the_mock` builds one in target/sdk-venv).

  python sdk_check.py --base http://127.0.0.1:PORT     (a running mock)
  python sdk_check.py                                  (starts its own mock)

Prints one "ok <check>" line per passed check and "SDK CHECK OK <n>" at the end; exits 1 on
the first failure with the reason.
"""

import argparse
import os
import subprocess
import sys

try:
    import anthropic
    import openai
except ImportError as missing:  # run outside the virtualenv, or PyPI was unreachable
    print("SKIP: the official SDKs are not installed here (%s); pip install openai anthropic" % missing)
    sys.exit(0)

CHECKS = []


def check(name):
    def wrap(f):
        CHECKS.append((name, f))
        return f
    return wrap


def expect_error(call, error_type):
    """Returns the SDK's exception, so a check can also read what the SDK made of the body."""
    try:
        call()
    except error_type as e:
        return e
    except Exception as e:  # a wrong error class is a failure, with its name
        raise AssertionError("expected %s, got %s: %s" % (error_type.__name__, type(e).__name__, e))
    raise AssertionError("expected %s, got a normal answer" % error_type.__name__)


# The error type each status carries in the mock's bodies, as the real APIs name them.
ERROR_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
               429: "rate_limit_error", 500: "api_error", 503: "overloaded_error"}


def status_error_check(sdk, call, model, err):
    """An HTTP error mode: the SDK's class, its status_code, and the type and message it read
    from the body (OpenAI's SDK keeps the inner `error` object as .body, Anthropic's the whole body)."""
    def f():
        e = expect_error(lambda: call(model), err)
        status = int(model.split("-")[1])
        assert e.status_code == status, (e.status_code, status)
        if sdk == "openai":
            assert e.type == ERROR_TYPES[status] and e.body["message"] in e.message, (e.type, e.body)
        else:
            assert e.body["type"] == "error" and e.body["error"]["type"] == ERROR_TYPES[status], e.body
            assert e.body["error"]["message"] in e.message, e.message
    return f


def user(text):
    return [{"role": "user", "content": text}]


def run(base):
    oa = openai.OpenAI(base_url=base + "/v1", api_key="sk-mock-not-a-key", max_retries=0, timeout=5)
    an = anthropic.Anthropic(base_url=base, api_key="sk-ant-mock-not-a-key", max_retries=0, timeout=5)

    @check("openai chat with logprobs")
    def _():
        r = oa.chat.completions.create(model="mock-a", messages=user("Who was late?"), temperature=0,
                                       seed=1, logprobs=True, top_logprobs=2)
        assert r.choices[0].message.content in ("A", "B", "C"), r
        assert len(r.choices[0].logprobs.content[0].top_logprobs) == 2, r
        assert r.usage.completion_tokens == 1
        again = oa.chat.completions.create(model="mock-a", messages=user("Who was late?"))
        assert again.choices[0].message.content == r.choices[0].message.content, "not deterministic"

    @check("openai refusal")
    def _():
        r = oa.chat.completions.create(model="mock-refusal", messages=user("x"))
        assert r.choices[0].message.refusal and r.choices[0].message.content is None, r

    @check("openai content filter")
    def _():
        r = oa.chat.completions.create(model="mock-filtered", messages=user("x"))
        assert r.choices[0].finish_reason == "content_filter" and r.choices[0].message.content == "", r

    @check("openai empty content")
    def _():
        r = oa.chat.completions.create(model="mock-empty", messages=user("x"))
        assert r.choices[0].message.content == "" and r.choices[0].finish_reason == "stop", r
        assert r.choices[0].message.refusal is None, r

    @check("openai embeddings")
    def _():
        r = oa.embeddings.create(model="mock-embed", input=["a nurse", "a pilot"])
        assert [d.index for d in r.data] == [0, 1] and len(r.data[0].embedding) == 8, r

    @check("openai models")
    def _():
        assert "mock-a" in [m.id for m in oa.models.list()]

    def oa_call(model):
        return oa.with_options(timeout=1).chat.completions.create(model=model, messages=user("x"))

    for model, err in [("mock-401", openai.AuthenticationError), ("mock-403", openai.PermissionDeniedError),
                       ("mock-404", openai.NotFoundError), ("mock-429", openai.RateLimitError),
                       ("mock-500", openai.InternalServerError), ("mock-503", openai.InternalServerError)]:
        check("openai %s -> %s" % (model, err.__name__))(status_error_check("openai", oa_call, model, err))
    for model, err in [("mock-drop", openai.APIConnectionError), ("mock-timeout", openai.APITimeoutError)]:
        check("openai %s -> %s" % (model, err.__name__))(
            lambda model=model, err=err: expect_error(lambda: oa_call(model), err))

    @check("openai 429 carries Retry-After")
    def _():
        try:
            oa.chat.completions.create(model="mock-429", messages=user("x"))
        except openai.RateLimitError as e:
            assert e.response.headers.get("retry-after") == "1", e.response.headers
            assert "rate limit" in e.message, e.message

    @check("openai truncated body is rejected")
    def _():
        try:
            r = oa.chat.completions.create(model="mock-truncated", messages=user("x"))
        except Exception:
            return
        raise AssertionError("a truncated body was accepted: %r" % r)

    @check("anthropic messages")
    def _():
        r = an.messages.create(model="mock-a", max_tokens=5, system="One letter.",
                               messages=user("Who was late?"))
        assert r.content[0].type == "text" and r.content[0].text in ("A", "B", "C"), r
        assert r.stop_reason == "end_turn" and r.usage.input_tokens > 0, r

    @check("anthropic refusal")
    def _():
        r = an.messages.create(model="mock-refusal", max_tokens=5, messages=user("x"))
        assert r.stop_reason == "refusal" and r.content == [], r

    @check("anthropic filtered: a classifier stop after some text")
    def _():
        r = an.messages.create(model="mock-filtered", max_tokens=5, messages=user("x"))
        assert r.stop_reason == "refusal" and r.content[0].type == "text" and r.content[0].text, r

    @check("anthropic empty content")
    def _():
        r = an.messages.create(model="mock-empty", max_tokens=5, messages=user("x"))
        assert r.content == [] and r.stop_reason == "end_turn", r

    @check("anthropic 429 carries Retry-After")
    def _():
        e = expect_error(lambda: an.messages.create(model="mock-429", max_tokens=5, messages=user("x")),
                         anthropic.RateLimitError)
        assert e.response.headers.get("retry-after") == "1", e.response.headers

    @check("anthropic truncated body is rejected")
    def _():
        try:
            r = an.messages.create(model="mock-truncated", max_tokens=5, messages=user("x"))
        except Exception:
            return
        raise AssertionError("a truncated body was accepted: %r" % r)

    @check("anthropic models")
    def _():
        assert "mock-a" in [m.id for m in an.models.list()]

    def an_call(model):
        return an.with_options(timeout=1).messages.create(model=model, max_tokens=5, messages=user("x"))

    for model, err in [("mock-401", anthropic.AuthenticationError), ("mock-403", anthropic.PermissionDeniedError),
                       ("mock-404", anthropic.NotFoundError), ("mock-429", anthropic.RateLimitError),
                       ("mock-500", anthropic.InternalServerError), ("mock-503", anthropic.InternalServerError)]:
        check("anthropic %s -> %s" % (model, err.__name__))(status_error_check("anthropic", an_call, model, err))
    for model, err in [("mock-drop", anthropic.APIConnectionError), ("mock-timeout", anthropic.APITimeoutError)]:
        check("anthropic %s -> %s" % (model, err.__name__))(
            lambda model=model, err=err: expect_error(lambda: an_call(model), err))

    for name, f in CHECKS:
        try:
            f()
        except Exception as e:
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e), flush=True)
            return 1
        print("ok", name, flush=True)
    print("SDK CHECK OK", len(CHECKS), "openai", openai.__version__, "anthropic", anthropic.__version__, flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", help="the mock's base URL; without it a mock is started here")
    args = ap.parse_args()
    if args.base:
        return run(args.base)
    here = os.path.dirname(os.path.abspath(__file__))
    mock = subprocess.Popen([sys.executable, os.path.join(here, "mock_provider.py"), "--timeout-s", "3",
                             "--max-seconds", "120"], stdout=subprocess.PIPE, text=True)
    try:
        port = mock.stdout.readline().split()[1]
        return run("http://127.0.0.1:" + port)
    finally:
        mock.terminate()
        mock.wait(5)


if __name__ == "__main__":
    sys.exit(main())
