"""What a server's 200 must hold before we believe it: JSON of the expected shape, text that
is a string, token counts that are non-negative integers, log-probabilities finite and <= 0.

A reply that breaks any of these is a fault of the server that sent it (a replica may be
broken, or a proxy truncated the body): `malformed` makes the TransientError that retries
it, or moves it to another endpoint, and after the last attempt fails the call with the
reason. Nothing here reads the SDKs' objects: the providers hand in the body's bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from verstehen.errors import TransientError
from verstehen.models.base import Completion, Usage
from verstehen.models.limits import MAX_TOKEN_COUNT


def malformed(reason: str) -> TransientError:
    """The error of a reply of the wrong shape."""
    return TransientError(f"malformed reply: {reason}")


def reply_object(body: bytes) -> dict[str, object]:
    """The JSON object a reply's body holds; TransientError for anything else (truncated or
    not JSON, nested past the parser's depth, not an object)."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise malformed("JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, an integer of 5,000 digits
        raise malformed(f"not JSON ({type(exc).__name__} at {_where(exc)})") from None
    return as_object(data, "the reply")


def _where(exc: ValueError) -> str:
    position = getattr(exc, "pos", None) if isinstance(exc, json.JSONDecodeError) else None
    return f"byte {position}" if position is not None else "its start"


def as_object(value: object, what: str) -> dict[str, object]:
    """`value` when it is a JSON object; TransientError naming `what` otherwise. Its values
    are unchecked (`object`) until read through the functions below."""
    if not isinstance(value, dict):
        raise malformed(f"{what} is {kind_of(value)}, not an object")
    return value


def optional_object(value: object, what: str) -> dict[str, object]:
    """An object, or {} for null/absent."""
    return {} if value is None else as_object(value, what)


def first_of(value: object, what: str) -> dict[str, object]:
    """The first element of a non-empty list of objects (a reply's `choices`)."""
    if not isinstance(value, list) or not value:
        raise malformed(f"{what} is {kind_of(value)}, not a list with an entry")
    return as_object(value[0], f"the first of {what}")


def text_of(value: object, what: str) -> str:
    """A string; null is "" (a reply with no text). TransientError for anything else."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise malformed(f"{what} is {kind_of(value)}, not text")
    return value


def optional_text(value: object, what: str) -> str | None:
    """A string or None (a finish reason)."""
    return None if value is None else text_of(value, what)


def token_count(value: object, what: str) -> int:
    """A token count: a non-negative integer up to MAX_TOKEN_COUNT (null or absent is 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise malformed(f"{what} is {kind_of(value)}, not a whole number of tokens")
    if not 0 <= value <= MAX_TOKEN_COUNT:
        raise malformed(f"{what} is {number_text(value)}, outside 0 to "
                        f"{MAX_TOKEN_COUNT:.0e} tokens")
    return value


def logprob(value: object, what: str) -> float:
    """A log-probability: a finite number <= 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise malformed(f"{what} is {kind_of(value)}, not a number")
    number = float(value)
    if not math.isfinite(number) or number > 0:
        raise malformed(f"{what} is {number}, not a finite log-probability <= 0")
    return number


def optional_logprob(value: object, what: str) -> float | None:
    """A log-probability, or None where the server gives none (a prompt's first token)."""
    return None if value is None else logprob(value, what)


def kind_of(value: object) -> str:
    """How a JSON value is described in a reason: its JSON type, a short text shown."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, str):
        return f"the text {value[:20]!r}" + ("..." if len(value) > 20 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def number_text(value: int | float) -> str:
    """A number shortly: to 6 significant digits, or its count of digits past float range."""
    if isinstance(value, int) and abs(value) >= 10**300:
        return f"a {len(str(abs(value)))}-digit number"
    return f"the number {value:.6g}"


def completion_of(reply: dict[str, object]) -> Completion:
    """The answer of a chat completion (its JSON object), the reasoning a server gave apart
    (`reasoning_content` of vLLM and SGLang, `reasoning` of newer vLLM) and its token counts,
    reasoning tokens from `usage.completion_tokens_details` (OpenAI); TransientError for a
    reply of another shape. Content given as a list of parts (Mistral's form) is the text of
    its "text" parts, joined; its other parts (thinking) are left out."""
    choice = first_of(reply.get("choices"), "choices")
    message = as_object(choice.get("message"), "choices[0].message")
    usage = optional_object(reply.get("usage"), "usage")
    details = optional_object(usage.get("completion_tokens_details"),
                              "usage.completion_tokens_details")
    reasoning = next((text for text in (message.get(name) for name in
                                        ("reasoning_content", "reasoning"))
                      if isinstance(text, str) and text), None)
    return Completion(
        text=content_text(message.get("content")),
        finish_reason=optional_text(choice.get("finish_reason"), "choices[0].finish_reason"),
        usage=Usage(token_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
                    token_count(usage.get("completion_tokens"), "usage.completion_tokens"),
                    token_count(details.get("reasoning_tokens"),
                                "usage.completion_tokens_details.reasoning_tokens")),
        reasoning=reasoning,
    )


def content_text(content: object) -> str:
    """A message's content as text: a string, null (""), or a list of typed parts whose
    "text" parts are joined; TransientError for anything else."""
    if not isinstance(content, list):
        return text_of(content, "choices[0].message.content")
    parts = [as_object(part, f"choices[0].message.content[{i}]")
             for i, part in enumerate(content)]
    if not all(isinstance(part.get("type"), str) for part in parts):
        raise malformed("choices[0].message.content is a list with a part of no type")
    return "".join(text_of(part.get("text"), f"choices[0].message.content[{i}].text")
                   for i, part in enumerate(parts) if part["type"] == "text")
