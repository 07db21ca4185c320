"""A 200 of the wrong shape is a transient fault of the server that sent it: never a crash,
never a value to cache; with two replicas the call moves to the healthy one; a server's error
text keeps no control characters (issue 29 items 4, 10, 11 and 12, at the providers).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable

import pytest
from hostile_http import (
    PARAMS,
    HostileServer,
    chat_with,
    echo_logprobs,
    generations,
    json_reply,
    outcome,
    raw,
)

from verstehen.errors import CallFailed, TransientError
from verstehen.models import user
from verstehen.models.anthropic_api import AnthropicModel
from verstehen.models.openai_api import OpenAIModel
from verstehen.models.remote import escape_controls, redact

USAGE = {"prompt_tokens": 3, "completion_tokens": 2}


@pytest.mark.parametrize(("answer", "reason"), [
    (chat_with(content=[1, 2]), "content[0] is the number 1, not an object"),
    (chat_with(content=["a"]), "content[0] is the text 'a', not an object"),
    (chat_with(content=[{"text": "a"}]), "a part of no type"),
    (chat_with(content=[{"type": "text", "text": 5}]), "content[0].text is the number 5"),
    (chat_with(content=42), "content is the number 42, not text"),
    (chat_with(content={"text": "a"}), "content is an object, not text"),
    (chat_with(drop=["choices"]), "choices is null, not a list"),
    (chat_with(choices=[]), "choices is a list of 0, not a list with an entry"),
    (chat_with(choices=["x"]), "the first of choices is the text 'x'"),
    (chat_with(choices=[{"message": "hi"}]), "choices[0].message is the text 'hi'"),
    (chat_with(usage={**USAGE, "prompt_tokens": "abc"}), "usage.prompt_tokens is the text 'abc'"),
    (chat_with(usage={**USAGE, "prompt_tokens": -5}), "the number -5, outside 0 to 1e+09"),
    (chat_with(usage={**USAGE, "completion_tokens": 2.5}), "the number 2.5, not a whole number"),
    (chat_with(usage={**USAGE, "completion_tokens": 10**30}), "the number 1e+30, outside"),
    (chat_with(usage={**USAGE, "prompt_tokens": True}), "a boolean, not a whole number"),
    (chat_with(usage={**USAGE, "completion_tokens_details": {"reasoning_tokens": -1}}),
     "reasoning_tokens is the number -1"),
    (chat_with(usage="lots"), "usage is the text 'lots', not an object"),
    (raw(b'{"choices": [{"message": {"content": "Par'), "not JSON (JSONDecodeError at byte"),
    (raw(b"<html>502 Bad Gateway</html>", extra="content-type: text/html\r\n"), "not JSON"),
    (raw(b"[" * 100_000), "nested too deeply"),
    (raw(b'{"a": "\xff\xfe"}'), "not JSON (UnicodeDecodeError"),
    (json_reply([1, 2]), "the reply is a list of 2, not an object"),
])
def test_a_chat_reply_of_the_wrong_shape_is_a_transient_fault(answer, reason):
    """Wrong types, impossible token counts and broken JSON in a 200: TransientError with
    the reason (before: a list stored as text, `TypeError` in parsing, "abc" crashing the
    runner, 10^30 tokens printed, JSONDecodeError; issue 29 items 4, 10, 11)."""
    with HostileServer(answer) as server:
        [result] = generations(server.url, timeout=10)
    assert isinstance(result, TransientError), result
    assert str(result).startswith("malformed reply: ") and reason in str(result)


def test_content_given_as_text_parts_is_joined():
    """Mistral's form, a list of typed parts: the "text" parts joined, thinking left out."""
    parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]},
             {"type": "text", "text": "Par"}, {"type": "text", "text": "is"}]
    with HostileServer(chat_with(content=parts, usage=USAGE)) as server:
        [result] = generations(server.url, timeout=10)
    assert result.text == "Paris" and (result.usage.prompt_tokens, result.usage.completion_tokens
                                       ) == (3, 2)


def test_null_content_and_missing_usage_stay_accepted():
    """What servers legitimately send: no text (null), no usage: "" and zero tokens."""
    with HostileServer(chat_with(content=None, drop=["usage"])) as server:
        [result] = generations(server.url, timeout=10)
    assert result.text == "" and result.usage.prompt_tokens == 0


def test_a_broken_replica_fails_over():
    """Two replicas, one answering truncated JSON with status 200: all 40 calls succeed on
    the other (before: 20 of 40 failed for good with JSONDecodeError, issue 29 item 11)."""
    truncated = raw(b'{"id": "x", "choices": [{"message": {"content": "ec')
    with HostileServer(truncated) as broken, HostileServer(chat_with()) as healthy:
        results = generations([broken.url, healthy.url], calls=40)
    assert [r for r in results if isinstance(r, Exception)] == []
    assert sorted(r.text for r in results) == sorted(f"echo: q{i}" for i in range(40))
    assert broken.requests >= 1 and healthy.requests == 40


# --- log-probabilities (imagine answer's letters, consistency) -----------------------------

PROMPT_VALUES = [None, -1.0, -0.5, -0.25]  # "The", " capital", " is", " Paris"


def score(answer, kind: str = "openai") -> object:
    """The score of " Paris" after "The capital is", or the exception."""
    with HostileServer(answer) as server:
        model = OpenAIModel("m", base_url=server.url, timeout=10, server_kind=kind)
        return outcome(model, lambda m: first(m.logprobs("The capital is", [" Paris"])))


async def first(scores: Awaitable[list[float]]) -> float:
    """The first of the scores a logprobs call returns."""
    return (await scores)[0]


def test_a_valid_echo_scores():
    """The control: the continuation's one token scores -0.25."""
    assert score(echo_logprobs(PROMPT_VALUES)) == -0.25


@pytest.mark.parametrize(("values", "reason"), [
    ([None, -1.0, -0.5, math.nan], "token_logprobs[3] is nan, not a finite log-probability"),
    ([None, -1.0, -0.5, -math.inf], "token_logprobs[3] is -inf"),
    ([None, -1.0, -0.5, 10.0], "token_logprobs[3] is 10.0"),
    ([None, math.nan, math.nan, math.nan], "token_logprobs[1] is nan"),
    ([None, -1.0, -0.5, "-0.25"], "token_logprobs[3] is the text '-0.25', not a number"),
    ([None, -1.0, -0.5], "not one value for each of the 4 tokens"),
    ("abc", "token_logprobs is the text 'abc'"),
])
def test_log_probabilities_must_be_finite_and_at_most_zero(values, reason):
    """NaN, -inf, +10 and text as log-probabilities: TransientError (before: stored as they
    came, and with all NaN the letter picker chose "A"; issue 29 item 10)."""
    result = score(echo_logprobs(values))
    assert isinstance(result, TransientError), result
    assert reason in str(result)


def test_vllm_prompt_logprobs_are_checked_too():
    """vLLM's own form (prompt_logprobs) with a NaN: TransientError, not a NaN score."""
    entries = [None, {"1": {"logprob": -1.0, "decoded_token": " capital"}},
               {"2": {"logprob": -0.5, "decoded_token": " is"}},
               {"3": {"logprob": math.nan, "decoded_token": " Paris"}}]
    body = {"choices": [{"text": "", "prompt_logprobs": entries, "logprobs": None}]}
    result = score(json_reply(body), kind="vllm")
    assert isinstance(result, TransientError) and "entry 3 is nan" in str(result)


@pytest.mark.parametrize(("body", "reason"), [
    ({"choices": "x"}, "choices is the text 'x'"),
    ({"choices": [{"logprobs": "x"}]}, "logprobs is the text 'x', not an object"),
    ({"choices": [{"logprobs": {"tokens": [1, 2], "token_logprobs": [None, -1]}}]},
     "tokens is not a list of texts"),
])
def test_a_malformed_echo_is_a_transient_fault(body, reason):
    """/completions replies of the wrong shape: TransientError naming what is wrong."""
    result = score(json_reply(body))
    assert isinstance(result, TransientError) and reason in str(result)


def test_llamacpp_bos_probe_checks_its_token_count():
    """The llama.cpp BOS probe reads usage.prompt_tokens: "abc" is a malformed reply."""
    result = score(echo_logprobs(PROMPT_VALUES, usage={"prompt_tokens": "abc"}), kind="llamacpp")
    assert isinstance(result, TransientError) and "usage.prompt_tokens" in str(result)


# --- Anthropic -----------------------------------------------------------------------------

GOOD_MESSAGE = {"type": "message", "role": "assistant", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Hello"}],
                "usage": {"input_tokens": 5, "output_tokens": 1}}


def message(answer) -> object:
    """An Anthropic generation against `answer`, or the exception."""
    with HostileServer(answer) as server:
        model = AnthropicModel("claude-test", base_url=server.url.removesuffix("/v1"),
                               api_key_env="HOSTILE_KEY", timeout=10)
        return outcome(model, lambda m: m.generate(user("hi"), PARAMS))


@pytest.mark.parametrize(("changes", "reason"), [
    ({"content": "Hello"}, "content is the text 'Hello', not a list of blocks"),
    ({"content": 42}, "content is the number 42"),
    ({"content": [{"type": "text", "text": ["a"]}]}, "content[0].text is a list of 1"),
    ({"content": [{"text": "a"}]}, "a block of no type"),
    ({"content": [{"type": "thinking", "thinking": 3}]}, "thinking is the number 3"),
    ({"usage": {"input_tokens": "abc", "output_tokens": 1}}, "usage.input_tokens is the text"),
    ({"usage": {"input_tokens": 5, "output_tokens": -1}}, "usage.output_tokens is the number -1"),
    ({"usage": None}, "usage is null"),
    ({"stop_reason": 7}, "stop_reason is the number 7"),
])
def test_an_anthropic_reply_of_the_wrong_shape_is_a_transient_fault(changes, reason):
    """The Messages API's reply checked as the chat reply is."""
    result = message(json_reply({**GOOD_MESSAGE, **changes}))
    assert isinstance(result, TransientError), result
    assert reason in str(result)


def test_a_good_anthropic_reply_and_a_truncated_one():
    """The control reads as before; the same reply cut short is a transient fault."""
    good = message(json_reply(GOOD_MESSAGE))
    assert good.text == "Hello" and (good.usage.prompt_tokens, good.usage.completion_tokens
                                     ) == (5, 1)
    cut = message(raw(b'{"type": "message", "content": [{"type": "te'))
    assert isinstance(cut, TransientError) and "not JSON" in str(cut)


# --- a server's error text (item 12) ---------------------------------------------------------

HOSTILE_TEXT = "bad\x1b[2J\x1b]0;owned\x07 request\rFAKE LINE\x08\x9b31m\x00 end\ttab\nline"


def test_escape_controls_writes_every_control_character_as_text():
    """ESC, BEL, CR, backspace, NUL and C1 become \\x.. text; tab and newline stay."""
    assert escape_controls(HOSTILE_TEXT) == (
        "bad\\x1b[2J\\x1b]0;owned\\x07 request\\x0dFAKE LINE\\x08\\x9b31m\\x00 end\ttab\nline")


def test_a_server_error_text_reaches_the_error_escaped():
    """A 400 whose message clears the screen and sets the window title: the CallFailed text
    holds the escapes as text, and no control character but newline and tab."""
    with HostileServer(json_reply({"error": {"message": HOSTILE_TEXT}}, status=400)) as server:
        [result] = generations(server.url, timeout=10)
    assert isinstance(result, CallFailed)
    text = str(result)
    assert "\\x1b[2J" in text and "\\x07" in text and "\\x0dFAKE LINE" in text
    assert not any((ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F for c in text)


def test_a_huge_error_text_is_cut():
    """A 1 MB error message keeps 2,000 characters and says how many more there were."""
    text = redact("e" * 1_000_000, None)
    assert len(text) < 2100 and text.endswith("(998000 more characters)")


@pytest.fixture(autouse=True)
def _hostile_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTILE_KEY", "sk-hostile-test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
