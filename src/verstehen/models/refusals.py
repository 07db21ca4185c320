"""What the remote providers share about parameters a model refuses: reading a 400 that names
one, keeping what was changed (said once on stderr, kept as a note for run.json), asking one
call at a time until the model has answered once, and the replacements done here.

An API answers a parameter its model does not take with HTTP 400 naming it, and a refused call
costs nothing. Each provider knows which parameters it may drop or replace (`openai_api`,
`anthropic_api`, `litellm_api`); `refused_parameter` tells which one a 400 names, in the words
OpenAI's, Anthropic's and LiteLLM's errors use. Until a model has answered once, its calls go
one at a time (`FirstCall`), so that a parameter is refused once a run, not once per call in
flight (a first call that fails for another reason opens the way all the same: a server that
is down or slow must not hold the others in a queue).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import TypeVar

from verstehen.models.base import Completion, Message
from verstehen.models.remote import note

T = TypeVar("T")

# what a parameter is called in this module: the name a provider sends, "system" for the system
# role, "thinking.type.enabled" for Anthropic's extended thinking with a budget
MAX_TOKENS, TEMPERATURE, STOP, SEED = "max_tokens", "temperature", "stop", "seed"
SYSTEM, ENABLED_THINKING = "system", "thinking.type.enabled"
_QUOTE = "[`'\"]?"
# "Unsupported parameter: 'stop' is not supported with this model." (OpenAI),
# "Unsupported value: 'temperature' does not support 0 with this model." (OpenAI),
# "`temperature` is deprecated for this model." (Anthropic, Claude Opus 4.7 and later)
_NAMED = {name: re.compile(
    rf"unsupported (?:parameter|value):\s*{_QUOTE}{spelled}{_QUOTE}(?![\w.\[])"
    rf"|{_QUOTE}{spelled}{_QUOTE} (?:is|are) (?:deprecated|not supported)", re.IGNORECASE)
    for name, spelled in ((MAX_TOKENS, "max_tokens"), (TEMPERATURE, "temperature"),
                          (STOP, "stop(?:_sequences)?"), (SEED, "seed"))}
_PATTERNS = {
    **_NAMED,
    # "Unsupported value: 'messages[0].role' does not support 'system' with this model." (o1-mini)
    SYSTEM: re.compile(r"does not support 'system'", re.IGNORECASE),
    # '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive"'
    ENABLED_THINKING: re.compile(r"thinking\.type\.enabled[`'\"]? is not supported",
                                 re.IGNORECASE),
}
_ROLE = re.compile(r"messages\[\d+\]\.role")


def refused_parameter(exc: BaseException, candidates: Collection[str]) -> str | None:
    """The one of `candidates` an HTTP 400 says the model does not take (by OpenAI's `param`
    and `code` fields, or in the words of its message); None for any other error."""
    if getattr(exc, "status_code", None) != 400:
        return None
    param, code = getattr(exc, "param", None), str(getattr(exc, "code", None) or "")
    if code.startswith("unsupported") and isinstance(param, str):
        named = SYSTEM if _ROLE.fullmatch(param) else param
        if named in candidates and (named != SYSTEM or "'system'" in _message(exc)):
            return named
    text = _message(exc)
    return next((name for name in candidates
                 if name in _PATTERNS and _PATTERNS[name].search(text)), None)


def _message(exc: BaseException) -> str:
    return str(getattr(exc, "message", None) or exc)


class Learned:
    """The changes one model made to its requests after its API refused a parameter: each one
    said once on stderr as it is made, and all of them kept for the run's usage notes."""

    def __init__(self) -> None:
        self.changed: dict[str, str] = {}  # the parameter -> the line that says what was done

    def __contains__(self, parameter: str) -> bool:
        return parameter in self.changed

    def record(self, parameter: str, line: str) -> None:
        """Keep and say once what was done about `parameter`."""
        if parameter not in self.changed:
            self.changed[parameter] = line
            note(line)

    def notes(self) -> tuple[str, ...]:
        """The lines said, in order."""
        return tuple(self.changed.values())


class FirstCall:
    """Calls one at a time until one has ended, answered or failed (a refusal learnt on the
    first call is not met again by the calls sent beside it); then all at once."""

    def __init__(self) -> None:
        self.answered = False
        self._lock: tuple[object, asyncio.Lock] = (None, asyncio.Lock())

    async def run(self, call: Callable[[], Awaitable[T]]) -> T:
        """`call()`, alone while no call has ended yet."""
        if self.answered:
            return await call()
        loop = asyncio.get_running_loop()
        if self._lock[0] is not loop:  # a lock serves the loop it was made on
            self._lock = (loop, asyncio.Lock())
        async with self._lock[1]:
            if not self.answered:
                try:
                    return await call()
                finally:
                    self.answered = True
        return await call()


def refused_why(server: str, parameter: str) -> str:
    """How a note says which server refused what."""
    shown = "thinking.type: enabled" if parameter == ENABLED_THINKING else parameter
    return f"{server} refused `{shown}` with HTTP 400"


def system_in_user_turn(messages: Iterable[Message]) -> list[Message]:
    """The conversation without system messages: their text, joined, goes first in the first
    user message (for a model that refuses the system role)."""
    turns = list(messages)
    system = "\n\n".join(m["content"] for m in turns if m["role"] == "system")
    rest = [m.copy() for m in turns if m["role"] != "system"]
    if not system:
        return rest
    first = next((i for i, m in enumerate(rest) if m["role"] == "user"), None)
    if first is None:
        return [{"role": "user", "content": system}, *rest]
    rest[first]["content"] = f"{system}\n\n{rest[first]['content']}"
    return rest


def cut_at_stop(completion: Completion, stops: Iterable[str]) -> Completion:
    """The completion as a server that takes stop sequences would have ended it: its text up
    to the first stop sequence (left out), finish reason "stop"."""
    text = completion.text
    found = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    if not found:
        return completion
    return Completion(text[:min(found)], "stop", completion.usage, completion.reasoning)
