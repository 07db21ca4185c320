"""A graded answer: its score in [0, 1] (0 = ridiculous), what kind of answer it was, and why.

Shared by the scopes (certification's question distributions) and the concept domains, whose
checkers grade use-task replies for certification and the Potemkin procedures alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from verstehen.reading import ends_inside_reasoning

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


def grade_reply(graded: Graded, text: str, finish_reason: str | None,
                cap: int | None) -> Graded:
    """A reply's grade, knowing how it ended: cut off is cut off. A reply the provider cut at
    the token cap, or that ends inside its reasoning block, is "truncated" (score 0) whatever
    it holds, since a reply that did not end may still have changed its answer; the reason
    says what it read as so far (`verstehen.reading`, rule 4)."""
    if was_cut_off(finish_reason):
        at = f"the {cap}-token cap" if cap else "the token cap"
        return Graded(0.0, "truncated", None,
                      f"cut off at {at} before it ended, so it gave no final answer "
                      f"(so far it read as {_so_far(graded)})")
    if ends_inside_reasoning(text) and graded.outcome != "truncated":
        return Graded(0.0, "truncated", None, "cut off inside its reasoning block (<think> "
                      "is never closed), before it gave an answer")
    return graded


def _so_far(graded: Graded) -> str:
    return f"{graded.outcome}: {graded.reason}" if graded.reason else graded.outcome
