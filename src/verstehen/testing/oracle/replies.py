"""The oracle's and the adversary's replies to one question: content, reasoning and style."""

from __future__ import annotations

import zlib

import numpy as np

from verstehen.scopes.base import Question, Scope
from verstehen.testing.oracle.answers import Answer, right_answer
from verstehen.testing.oracle.near_miss import wrong_answer
from verstehen.testing.oracle.reasoning import reasoning
from verstehen.testing.oracle.styles import render

_CACHE: dict[tuple[str, str], tuple[Answer, Answer | None]] = {}
_CACHE_SIZE = 4096


def right_and_wrong(scope: Scope, question: Question, wrong: bool = True
                    ) -> tuple[Answer, Answer | None]:
    """The right answer and (when `wrong`) the adversary's, remembered per question."""
    key = (scope.name, question.id)
    right, bad = _CACHE.get(key, (None, None))
    if right is None:
        right = right_answer(scope, question)
    if wrong and bad is None:
        bad = wrong_answer(scope, question, right)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = (right, bad)
    return right, bad


def _reply(scope: Scope, question: Question, style: str, reasoning_tokens: int,
           adversary: bool) -> str:
    needs_other = adversary or reasoning_tokens > 0 or style == "draft"
    right, wrong = right_and_wrong(scope, question, needs_other)
    mine, other = (wrong, right) if adversary else (right, wrong)
    assert mine is not None
    seed = zlib.crc32(f"{question.id}/{style}/{adversary}".encode())
    prose = reasoning(mine, other, reasoning_tokens, np.random.default_rng(seed)) if (
        other is not None) else ""
    return render(mine, style, prose, lambda: other if other is not None else right)


def oracle_reply(scope: Scope, question: Question, style: str, reasoning_tokens: int = 0) -> str:
    """The right answer to `question`, in `style`, after about `reasoning_tokens` words of
    reasoning; the scope grades it 1."""
    return _reply(scope, question, style, reasoning_tokens, adversary=False)


def adversary_reply(scope: Scope, question: Question, style: str,
                    reasoning_tokens: int = 0) -> str:
    """A plausible wrong answer in `style`, after about `reasoning_tokens` words of reasoning;
    the scope reads it and grades it 0 "wrong"."""
    return _reply(scope, question, style, reasoning_tokens, adversary=True)
