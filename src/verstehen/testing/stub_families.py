"""What the stand-ins of model families' APIs share (`testing/reasoning_stubs.py`): a route
for `StubEndpoints` that refuses what a family refuses, counting each refusal by parameter,
and answers the rest; the error bodies of OpenAI and Anthropic; a reply's words spent on
reasoning and answer under a cap.

A token is a word here. The answer is any function of the last message ("ANSWER: Yes" by
default; the oracle's `Responder.reply` for a run that must be graded).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

JSON = dict[str, Any]
Answer = Callable[[str], str]
Refusal = tuple[str, JSON]  # the parameter refused, and the error body of the 400
ANSWER = "ANSWER: Yes"


def fixed_answer(prompt: str) -> str:
    """The same answer to every prompt."""
    return ANSWER


def thoughts(n: int) -> str:
    """A reasoning text of `n` tokens."""
    return " ".join(f"thought{k}" for k in range(n))


def tokens(text: str) -> int:
    """The tokens of a text (its words)."""
    return len(text.split())


def text_of(content: object) -> str:
    """A message's text: a string, or the text blocks of Anthropic's list of content blocks
    (how LiteLLM sends a message to Anthropic)."""
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content
                       if isinstance(block, dict) and block.get("type") == "text")
    return "" if content is None else str(content)


def last_message(payload: JSON) -> str:
    """The text of a request's last message ('' if none)."""
    messages = payload.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return text_of(messages[-1].get("content"))
    return ""


def prompt_tokens(payload: JSON) -> int:
    """The tokens of a request's system text and messages."""
    messages = payload.get("messages") or []
    system = payload.get("system") or ""
    return tokens(text_of(system)) + sum(
        tokens(text_of(m.get("content"))) for m in messages if isinstance(m, dict))


def spend(cap: int | None, reasoning: int, answer: str) -> tuple[int, str, bool]:
    """Reasoning tokens used, the answer text left, and whether the cap cut the reply."""
    if cap is not None and cap <= reasoning:
        return cap, "", True
    words = answer.split()
    room = len(words) if cap is None else cap - reasoning
    return reasoning, " ".join(words[:room]) if room < len(words) else answer, room < len(words)


def stopped(text: str, stops: Iterable[str]) -> tuple[str, bool]:
    """The text up to the first stop sequence (left out), and whether one was met."""
    found = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    return (text[:min(found)], True) if found else (text, False)


def openai_error(message: str, param: str, code: str) -> JSON:
    """OpenAI's error body."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}


def anthropic_error(message: str) -> JSON:
    """Anthropic's error body for a request it refuses (HTTP 400)."""
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_stub"}


class FamilyStub:
    """One family's API on one path, as a `StubEndpoints` route: a request it refuses gets
    HTTP 400 (`refusal`), counted in `refused` by parameter; any other gets `reply`, counted
    in `answered`."""

    path = "/chat/completions"

    def __init__(self, answer: Answer = fixed_answer) -> None:
        self.answer = answer
        self.refused: Counter[str] = Counter()
        self.answered = 0

    def refusal(self, payload: JSON) -> Refusal | None:
        """The parameter this family refuses in `payload` and the 400's body; None: none."""
        return None

    def reply(self, payload: JSON) -> JSON:
        """The 200 body answering `payload`."""
        raise NotImplementedError

    def reply_text(self, payload: JSON) -> str:
        """What the model answers to the request's last message."""
        return self.answer(last_message(payload))

    async def __call__(self, endpoint: int, method: str, path: str, payload: JSON
                       ) -> tuple[int, JSON] | None:
        """The refusal or the reply to a POST on this family's path; None for anything else."""
        if method != "POST" or not path.endswith(self.path):
            return None
        if (refused := self.refusal(payload)) is not None:
            self.refused[refused[0]] += 1
            return 400, refused[1]
        self.answered += 1
        return 200, self.reply(payload)
