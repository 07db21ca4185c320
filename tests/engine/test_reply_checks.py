"""The runner checks every value before it is cached or returned (issue 29, items 4, 5, 10):
whatever model produced it, a value of the wrong shape is a failed call with its reason (retried,
then given up), never a cache row; a row of the wrong shape already in the file is a miss; lone
surrogates are replaced by U+FFFD before anything is written, and said once in the notes."""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from verstehen.engine.cache import Cache, call_key, checksum
from verstehen.engine.runner import CallResult, RetryPolicy, Runner
from verstehen.models import GenerateParams, Message, user
from verstehen.models.base import Completion, Usage
from verstehen.testing.scripted import ScriptedModel

TWO_FAST_ATTEMPTS = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)


class ReturningModel(ScriptedModel):
    """A model (as a plugin might be) whose generate returns `reply` and whose logprobs return
    `scores`, whatever they are."""

    def __init__(self, reply: Any = None, scores: Any = None) -> None:
        super().__init__()
        self.reply, self.scores = reply, scores

    async def generate(self, messages: list[Message], params: GenerateParams) -> Any:
        """The value given, as it is."""
        self.calls.append(messages[-1]["content"])
        return self.reply

    async def logprobs(self, context: str, continuations: list[str]) -> Any:
        """The scores given, as they are."""
        self.calls.append(context)
        return self.scores


def rows(path: Path) -> list[tuple[str, str]]:
    """Every (key, response) in the cache file, read with a connection of the test's own."""
    db = sqlite3.connect(path)
    try:
        return list(db.execute("SELECT key, response FROM calls"))
    except sqlite3.OperationalError:  # no table: nothing was ever written
        return []
    finally:
        db.close()


def ask(path: Path, model: ScriptedModel, kind: str = "generate",
        continuations: tuple[str, ...] = (" a", " b")) -> tuple[CallResult, Runner]:
    """One call through a fresh cache and runner (two quick attempts), the cache closed after."""
    async def body() -> tuple[CallResult, Runner]:
        cache = Cache(path)
        runner = Runner(cache, retry=TWO_FAST_ATTEMPTS)
        try:
            if kind == "generate":
                return await runner.generate(model, user("q")), runner
            return await runner.logprobs(model, "Q:", list(continuations)), runner
        finally:
            await cache.aclose()
    return asyncio.run(body())


def completion(text: Any = "fine", finish: Any = "stop", reasoning: Any = None,
               **counts: Any) -> Completion:
    """A Completion built without looking at what it holds (as a careless plugin would)."""
    usage = Usage()
    for name, value in {"prompt_tokens": 2, "completion_tokens": 3, **counts}.items():
        setattr(usage, name, value)
    return Completion(text, finish, usage, reasoning)


# Each bad generation and a word its error must name; every one of them got through before
# (a list or int as text was cached and crashed parsing later; "abc" tokens crashed runner.py)
BAD_GENERATIONS = [
    (completion(text=["a", "list"]), "text is list"),
    (completion(text=7), "text is int"),
    (completion(text=None), "text is NoneType"),
    (completion(finish=["stop"]), "finish_reason is list"),
    (completion(reasoning=3), "reasoning is int"),
    (completion(prompt_tokens="abc"), "prompt_tokens is 'abc'"),
    (completion(prompt_tokens=-1), "prompt_tokens is -1"),
    (completion(completion_tokens=2.5), "completion_tokens is 2.5"),
    (completion(completion_tokens=True), "completion_tokens is True"),
    (completion(prompt_tokens=10**30), "prompt_tokens is 1000000000000000000000000000000"),
    (completion(reasoning_tokens=float("nan")), "reasoning_tokens is nan"),
    ({"text": "a dict, not a Completion"}, "returned dict"),
    (None, "returned NoneType"),
]


@pytest.mark.parametrize(("reply", "named"), BAD_GENERATIONS,
                         ids=[named for _, named in BAD_GENERATIONS])
def test_a_bad_generation_fails_with_its_reason_and_is_never_cached(cache_path, reply, named):
    model = ReturningModel(reply)
    result, runner = ask(cache_path, model)
    assert not result.ok and result.value is None
    assert result.error.startswith("gave up after 2 attempts: "), result.error
    assert named in result.error, result.error
    assert len(model.calls) == 2  # retried as a transient fault, then given up
    assert rows(cache_path) == []
    assert runner.usage["scripted/m"].errors == 1
    assert runner.usage["scripted/m"].prompt_tokens == 0  # nothing of the bad value counted
    healthy = ScriptedModel()  # the same identity, now answering well
    result, _ = ask(cache_path, healthy)
    assert result.ok and result.value.text == "answer to q" and not result.cached
    assert [json.loads(r)["text"] for _, r in rows(cache_path)] == ["answer to q"]


# Each bad list of scores for two continuations, and a word its error must name
BAD_SCORES = [
    ([math.nan, -1.0], "nan"),
    ([-math.inf, -1.0], "-inf"),
    ([10.0, -1.0], "10.0"),
    ([-1.0, "x"], "'x'"),
    ([-1.0, None], "None"),
    ([-1.0, True], "True"),
    ([-1.0, 10**400], "1000000000"),  # an int beyond any float
    ([-1.0], "not a list of 2"),
    ("-1.0 -2.0", "not a list of 2"),
    (None, "not a list of 2"),
]


@pytest.mark.parametrize(("scores", "named"), BAD_SCORES,
                         ids=[named for _, named in BAD_SCORES])
def test_bad_log_probabilities_fail_and_are_never_cached(cache_path, scores, named):
    model = ReturningModel(scores=scores)
    result, _ = ask(cache_path, model, "logprobs")
    assert not result.ok and named in result.error, result.error
    assert result.error.startswith("gave up after 2 attempts: ")
    assert len(model.calls) == 2 and rows(cache_path) == []
    # the same identity, healthy: ScriptedModel scores minus the length of each continuation
    result, _ = ask(cache_path, ScriptedModel(), "logprobs")
    assert result.ok and result.value == [-2.0, -2.0]
    assert len(rows(cache_path)) == 1


def test_float_error_just_above_zero_is_zero_and_whole_numbers_are_floats(cache_path):
    """+1e-7 is rounding in a log-softmax, stored as 0.0; an int score is stored as a float;
    +0.01 (a probability of e^0.01 > 1) is no probability at all."""
    result, _ = ask(cache_path, ReturningModel(scores=[1e-7, -3]), "logprobs")
    assert result.ok and result.value == [0.0, -3.0]
    assert all(type(x) is float for x in result.value)
    assert json.loads(rows(cache_path)[0][1]) == {"logprobs": [0.0, -3.0]}
    result, _ = ask(cache_path, ReturningModel(scores=[0.01, -3]), "logprobs",
                    continuations=(" c", " d"))
    assert not result.ok and "0.01" in result.error


def key_of(model: ScriptedModel, kind: str = "generate") -> str:
    """The runner's key for `ask`'s call (the request as `Runner.generate`/`logprobs` make it)."""
    if kind == "generate":
        request = {"messages": user("q"), "params": GenerateParams().as_dict(), "sample": 0}
    else:
        request = {"context": "Q:", "continuations": [" a", " b"]}
    return call_key(model.identity(), kind, request)


def plant(path: Path, key: str, value: Any) -> None:
    """A row as an older version wrote it: any JSON value, with a right checksum."""
    Cache(path).close()  # makes the table
    text = json.dumps(value)
    db = sqlite3.connect(path)
    db.execute("INSERT INTO calls VALUES (?, 'scripted/m', 'generate', ?, 0, ?)",
               (key, text, checksum(text)))
    db.commit()
    db.close()


CACHED_BAD_ROWS = [
    ("generate", {"text": ["a", "list"], "finish_reason": "stop",
                  "usage": {"prompt_tokens": 1, "completion_tokens": 1}}),
    ("generate", {"text": "ok", "finish_reason": "stop",
                  "usage": {"prompt_tokens": "abc", "completion_tokens": 1}}),
    ("generate", {"text": "ok", "finish_reason": "stop", "usage": {"prompt_tokens": 1}}),
    ("generate", {"text": "ok", "finish_reason": "stop",
                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "cost": 3}}),
    ("generate", {"text": "ok"}),
    ("logprobs", {"logprobs": [float("nan"), -1.0]}),  # json writes NaN; older rows hold it
    ("logprobs", {"logprobs": [-1.0]}),
    ("logprobs", {"scores": [-1.0, -1.0]}),
]


@pytest.mark.parametrize(("kind", "value"), CACHED_BAD_ROWS)
def test_a_cached_row_of_a_bad_shape_is_a_miss_and_is_replaced(cache_path, capsys, kind, value):
    model = ScriptedModel()
    plant(cache_path, key_of(model, kind), value)
    capsys.readouterr()
    result, _ = ask(cache_path, model, kind)
    assert result.ok and not result.cached and len(model.calls) == 1
    assert capsys.readouterr().err == (
        f"verstehen: warning: cache {cache_path}: 1 damaged entry ignored and re-asked\n")
    [(_, response)] = rows(cache_path)
    assert json.loads(response) != value  # replaced by the healthy answer
    again, _ = ask(cache_path, model, kind)
    assert again.ok and again.cached and again.value == result.value
    assert len(model.calls) == 1 and capsys.readouterr().err == ""


def test_lone_surrogates_are_replaced_stored_and_noted_once(cache_path, capsys):
    """A paid reply holding lone surrogates is kept: U+FFFD in their place, cached, served from
    the cache the same; the model's notes say how many replies held them. A high and low half
    in sequence form one character: U+D83D U+DE00 is UTF-16 for U+1F600 (Unicode ch. 3.9)."""
    reply = completion(text="bad \ud800 end \ud83d\ude00", reasoning="think \udfff",
                       finish="st\udc80op")

    async def body() -> tuple[list[CallResult], Runner]:
        cache = Cache(cache_path)
        runner = Runner(cache, retry=TWO_FAST_ATTEMPTS)
        try:
            results = [await runner.generate(ReturningModel(reply), user(p)) for p in ("q", "r")]
            runner.count_endpoints()
            return results, runner
        finally:
            await cache.aclose()

    results, runner = asyncio.run(body())
    assert capsys.readouterr().err == ""  # the write did not fail
    for result in results:
        assert result.ok
        assert result.value.text == "bad \ufffd end \U0001F600"
        assert result.value.reasoning == "think \ufffd"
        assert result.value.finish_reason == "st\ufffdop"
    assert runner.usage["scripted/m"].notes == (
        "2 replies held invalid UTF-16 surrogates, replaced by U+FFFD",)
    assert len(rows(cache_path)) == 2
    cached, _ = ask(cache_path, ReturningModel(None))  # a model that would fail if asked
    assert cached.ok and cached.cached and cached.value.text == "bad \ufffd end \U0001F600"


def test_a_response_with_surrogates_written_directly_is_stored_and_read_back(cache_path):
    """`Cache.put` from any caller cannot fail on encoding: the row is escaped JSON, and it reads
    back as it was given."""
    response = {"text": "lone \ud800 here", "usage": {"prompt_tokens": 1}}
    cache = Cache(cache_path)
    assert cache.put("k", "scripted/m\udcff", "generate", response).result(10) is True
    cache.close()
    [(key, text)] = rows(cache_path)
    assert key == "k" and "\\ud800" in text
    reopened = Cache(cache_path)
    assert reopened.get("k") == response
    reopened.close()
