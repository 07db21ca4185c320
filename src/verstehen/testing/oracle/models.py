"""In-process models and a stub-endpoint route that answer the prompts of an `AnswerBook`.

`OracleModel` answers every question right, `AdversaryModel` plausibly wrong; both cycle
through the styles, one style per new prompt (a prompt asked again gets its style again), and
answer "I don't know." to a prompt the book lacks. Like a real server they stop at the request's
token cap: a reply longer than `max_tokens` words is cut there, with finish reason "length".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from verstehen.models.base import Capabilities, Completion, GenerateParams, Message, Usage
from verstehen.scopes.base import Question, Scope
from verstehen.testing.oracle.replies import adversary_reply, oracle_reply
from verstehen.testing.oracle.styles import STYLES
from verstehen.testing.stub_endpoints import Route, prompt_of

IDK = "I don't know."


class AnswerBook:
    """Maps a prompt text to the (scope, question) it was rendered from."""

    def __init__(self) -> None:
        self._by_prompt: dict[str, tuple[Scope, Question]] = {}

    def add(self, scope: Scope, question: Question) -> None:
        """Remember a question a test will ask (under its prompt text)."""
        self._by_prompt[question.prompt] = (scope, question)

    def find(self, prompt: str) -> tuple[Scope, Question] | None:
        """The scope and question of a prompt, or None."""
        return self._by_prompt.get(prompt)

    def __len__(self) -> int:
        return len(self._by_prompt)


@dataclass(frozen=True)
class Cut:
    """A reply as a server returns it: the text up to the cap, and why it ended."""

    text: str
    finish_reason: str
    tokens: int


class Tokenizer(Protocol):
    """A real tokenizer, for a stub that counts tokens as a server does."""

    def encode(self, text: str) -> list[int]:
        """The token ids of a text."""
        ...

    def decode(self, ids: list[int]) -> str:
        """The text of token ids."""
        ...


def cut(text: str, max_tokens: int | None, tokenizer: Tokenizer | None = None) -> Cut:
    """`text` cut after its `max_tokens`-th token ("length"), or whole; tokens are the
    tokenizer's, or without one whitespace-separated words."""
    if tokenizer is not None:
        ids = tokenizer.encode(text)
        if max_tokens is not None and len(ids) > max_tokens:
            return Cut(tokenizer.decode(ids[:max_tokens]), "length", max_tokens)
        return Cut(text, "stop", len(ids))
    spans = [m.end() for m in re.finditer(r"\S+", text)]
    if max_tokens is not None and len(spans) > max_tokens:
        return Cut(text[:spans[max_tokens - 1]] if max_tokens > 0 else "", "length", max_tokens)
    return Cut(text, "stop", len(spans))


class Responder:
    """The reply to a prompt of the book: right or plausibly wrong, in one style or each in
    turn, after about `reasoning_tokens` words of reasoning."""

    def __init__(self, book: AnswerBook, *, adversary: bool = False, style: str | None = None,
                 reasoning_tokens: int = 0) -> None:
        if style is not None and style not in STYLES:
            raise ValueError(f"unknown style {style!r}: choose one of {', '.join(STYLES)}")
        self.book, self.adversary, self.style = book, adversary, style
        self.reasoning_tokens = reasoning_tokens
        self._styles: dict[str, str] = {}

    def style_for(self, prompt: str) -> str:
        """The fixed style, else the next style in turn for a new prompt (the same for a
        prompt seen before)."""
        if self.style is not None:
            return self.style
        return self._styles.setdefault(prompt, STYLES[len(self._styles) % len(STYLES)])

    def reply(self, prompt: str) -> str:
        """The reply to a prompt ("I don't know." for one the book lacks)."""
        found = self.book.find(prompt)
        if found is None:
            return IDK
        answer = adversary_reply if self.adversary else oracle_reply
        return answer(*found, self.style_for(prompt), self.reasoning_tokens)


class OracleModel:
    """An in-process `Model` that answers the book's prompts right (`Responder`)."""

    max_connections = 8
    capabilities = Capabilities(generate=True, logprobs=False, note="answers from a book")
    adversary = False

    def __init__(self, book: AnswerBook, *, style: str | None = None,
                 reasoning_tokens: int = 0, name: str | None = None) -> None:
        self.responder = Responder(book, adversary=self.adversary, style=style,
                                   reasoning_tokens=reasoning_tokens)
        self.name = name or ("oracle/adversary" if self.adversary else "oracle/right")
        self.calls: list[str] = []

    def identity(self) -> dict[str, str]:
        """Provider, name, style and reasoning length."""
        return {"provider": "oracle", "model": self.name,
                "style": self.responder.style or "cycle",
                "reasoning_tokens": str(self.responder.reasoning_tokens)}

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """The reply to the last message, cut at `params.max_tokens` words."""
        prompt = messages[-1]["content"]
        self.calls.append(prompt)
        reply = cut(self.responder.reply(prompt), params.max_tokens)
        prompt_tokens = sum(len(m["content"].split()) for m in messages)
        return Completion(reply.text, reply.finish_reason, Usage(prompt_tokens, reply.tokens))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Not offered (capabilities say so)."""
        raise NotImplementedError("an answer-book model scores no continuations")

    async def aclose(self) -> None:
        """Nothing to close."""


class AdversaryModel(OracleModel):
    """An in-process `Model` that answers the book's prompts plausibly wrong."""

    adversary = True


def oracle_route(book: AnswerBook, adversary: bool = False, *, style: str | None = None,
                 reasoning_tokens: int = 0, tokenizer: Tokenizer | None = None) -> Route:
    """A `StubEndpoints` route answering chat completions from the book, as `OracleModel` (or
    `AdversaryModel`) does, cut at the request's `max_tokens` (or `max_completion_tokens`),
    counted in the tokenizer's tokens when one is given."""
    responder = Responder(book, adversary=adversary, style=style,
                          reasoning_tokens=reasoning_tokens)

    async def route(endpoint: int, method: str, path: str, payload: dict[str, Any]
                    ) -> tuple[int, dict[str, Any]] | None:
        if method != "POST" or not path.endswith("/chat/completions"):
            return None
        cap = payload.get("max_completion_tokens", payload.get("max_tokens"))
        reply = cut(responder.reply(prompt_of(payload)), cap, tokenizer)
        prompt_tokens = sum(len(str(m.get("content", "")).split())
                            for m in payload.get("messages", []) if isinstance(m, dict))
        return 200, {
            "id": f"oracle-{endpoint}", "object": "chat.completion", "created": 0,
            "model": payload.get("model", "oracle"),
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": reply.tokens,
                      "total_tokens": prompt_tokens + reply.tokens},
        }

    return route
