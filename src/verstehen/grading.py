"""A graded answer: its score in [0, 1] (0 = ridiculous), what kind of answer it was, and why.

Shared by the scopes (certification's question distributions) and the concept domains, whose
checkers grade use-task replies for certification and the Potemkin procedures alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["correct", "partial", "wrong", "idk", "unparsed"]


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
