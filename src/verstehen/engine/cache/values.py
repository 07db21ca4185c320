"""The values a call may store: checked before a row is written and again when one is read.

A generation is `{"text", "finish_reason", "usage", ["reasoning"]}` (`GenerationValue`) and
a likelihood call `{"logprobs": [...]}` (`LogprobsValue`). Whatever model produced it (a
server, the local model, a plugin), a value of another shape is a `BadValue`: a failed
attempt (retried like any transient fault), never a row; a row of another shape (written by
an older version) is a miss. Lone surrogates in a reply's strings are replaced by U+FFFD, so
that no write can fail on encoding.
"""

from __future__ import annotations

import math
from typing import Literal, NotRequired, TypedDict, overload

from verstehen.errors import TransientError
from verstehen.models.base import Completion, Usage

# A token count above this is no real reply's (10^9 tokens is far beyond any context window).
MAX_TOKENS = 10**9
# A log-probability this far above 0 is float error in a log-softmax (float32 logits of
# magnitude ~30 carry ~1e-5 of it) and is stored as 0; further above is not a probability.
LOGPROB_SLACK = 1e-4
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


class UsageCounts(TypedDict):
    """A generation's token counts as stored; `reasoning_tokens` only when there are some."""

    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: NotRequired[int]


class GenerationValue(TypedDict):
    """A generation's stored value; rows written before reasoning was kept have no
    `reasoning`."""

    text: str
    finish_reason: str | None
    usage: UsageCounts
    reasoning: NotRequired[str | None]


class LogprobsValue(TypedDict):
    """A likelihood call's stored value: one log-probability per continuation."""

    logprobs: list[float]


# what the cache stores for a call of either kind
CachedValue = GenerationValue | LogprobsValue


class BadValue(TransientError):
    """A value no call may return or store; the message says what is wrong with it."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def storable(text: str) -> tuple[str, bool]:
    """`text` with lone surrogates replaced by U+FFFD (a pair of halves joined into its
    character), and whether any were there."""
    if text.isascii():
        return text, False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace"), True
    return text, False


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        raise BadValue(f"reply's {name} is {_shown(value)}, not a whole number from 0 to "
                       f"{MAX_TOKENS:,}")
    return value


@overload
def _text(name: str, value: object, *, optional: Literal[False]) -> tuple[str, bool]: ...
@overload
def _text(name: str, value: object, *, optional: bool) -> tuple[str | None, bool]: ...


def _text(name: str, value: object, *, optional: bool) -> tuple[str | None, bool]:
    if value is None and optional:
        return None, False
    if not isinstance(value, str):
        kind = "a string or null" if optional else "a string"
        raise BadValue(f"reply's {name} is {type(value).__name__} {_shown(value)}, not {kind}")
    return storable(value)


def completion_value(out: object) -> GenerationValue:
    """A model's Completion as the value stored for it (BadValue when it is not one)."""
    if not isinstance(out, Completion) or not isinstance(out.usage, Usage):
        what = out if not isinstance(out, Completion) else out.usage
        raise BadValue(f"the model returned {type(what).__name__} {_shown(what)}, not a "
                       f"{'Completion' if what is out else 'Usage'}")
    usage: UsageCounts = {"prompt_tokens": out.usage.prompt_tokens,
                          "completion_tokens": out.usage.completion_tokens}
    if out.usage.reasoning_tokens:  # stored only when there are some: older rows have none
        usage["reasoning_tokens"] = out.usage.reasoning_tokens
    stored: GenerationValue = {"text": out.text, "finish_reason": out.finish_reason,
                               "usage": usage}
    if out.reasoning is not None:
        stored["reasoning"] = out.reasoning
    return stored


def checked_generation(value: object) -> tuple[GenerationValue, bool]:
    """A generation's value made storable, and whether surrogates were replaced in it;
    BadValue when it is not of the shape above."""
    if not isinstance(value, dict) or not isinstance(value.get("usage"), dict):
        raise BadValue(f"a generation's value is {_shown(value)}, not text with usage")
    text, bad_text = _text("text", value.get("text"), optional=False)
    finish, bad_finish = _text("finish_reason", value.get("finish_reason"), optional=True)
    usage = value["usage"]
    if unknown := set(usage) - set(USAGE_FIELDS):
        raise BadValue(f"reply's usage has {', '.join(sorted(map(str, unknown)))}, not only "
                       "token counts")
    counts = {name: _count(name, usage[name]) for name in USAGE_FIELDS if name in usage}
    if not {"prompt_tokens", "completion_tokens"} <= counts.keys():
        raise BadValue("reply's usage lacks prompt_tokens or completion_tokens")
    checked_usage: UsageCounts = {"prompt_tokens": counts["prompt_tokens"],
                                  "completion_tokens": counts["completion_tokens"]}
    if "reasoning_tokens" in counts:
        checked_usage["reasoning_tokens"] = counts["reasoning_tokens"]
    checked: GenerationValue = {"text": text, "finish_reason": finish, "usage": checked_usage}
    bad_reasoning = False
    if "reasoning" in value:
        checked["reasoning"], bad_reasoning = _text("reasoning", value["reasoning"],
                                                    optional=True)
    return checked, bad_text or bad_finish or bad_reasoning


def checked_logprobs(value: object, expected: int) -> LogprobsValue:
    """A likelihood call's value, one finite log-probability <= 0 for each of `expected`
    continuations (float error just above 0 made 0); BadValue otherwise."""
    scores = value.get("logprobs") if isinstance(value, dict) else None
    if not isinstance(scores, list | tuple) or len(scores) != expected:
        raise BadValue(f"log-probabilities are {_shown(scores)}, not a list of {expected}")
    checked = []
    for score in scores:
        try:
            number = float(score) if isinstance(score, int | float) else math.nan
        except OverflowError:  # an int beyond any float
            number = math.inf
        if isinstance(score, bool) or not (math.isfinite(number) and number <= LOGPROB_SLACK):
            raise BadValue(f"log-probability {_shown(score)} is not a finite number <= 0")
        checked.append(min(number, 0.0))
    return {"logprobs": checked}
