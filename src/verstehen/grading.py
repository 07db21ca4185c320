"""A graded answer: its score in [0, 1] (0 = ridiculous), what kind of answer it was, and why.

Shared by the scopes (certification's question distributions) and the concept domains, whose
checkers grade use-task replies for certification and the Potemkin procedures alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["correct", "partial", "wrong", "idk", "unparsed", "truncated"]
# finish reasons of a reply the token cap cut off: OpenAI-compatible servers and llama.cpp say
# "length", Anthropic "max_tokens"
CUT_OFF = frozenset({"length", "max_tokens"})


@dataclass(frozen=True)
class Graded:
    """A scored answer: the score (0 = ridiculous), what kind of answer it was, and why."""

    score: float
    outcome: Outcome
    parsed: Any = None
    reason: str | None = None

    @property
    def ridiculous(self) -> bool:
        """True when the score is exactly 0 (the paper's definition)."""
        return self.score == 0.0


def was_cut_off(finish_reason: str | None) -> bool:
    """Whether the provider says the reply stopped at the token cap, not at its own end."""
    return finish_reason in CUT_OFF


def grade_reply(graded: Graded, finish_reason: str | None, cap: int) -> Graded:
    """A reply's grade, knowing how it ended: a reply cut off at the token cap keeps a grade
    above 0 (what it gave before the cut counts), and otherwise is "truncated" (score 0) with
    the reason it failed, so a cap is never silently a ridiculous answer."""
    if not was_cut_off(finish_reason) or graded.score > 0.0:
        return graded
    why = f"{graded.outcome}: {graded.reason}" if graded.reason else graded.outcome
    return Graded(0.0, "truncated", graded.parsed,
                  f"cut off at the {cap}-token cap before it ended ({why})")
