"""What a scope is: a question distribution, a scorer, and optionally families for explanations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from verstehen.grading import Graded


@dataclass(frozen=True)
class Question:
    """One question of a scope, asked in one phrasing.

    `id` names the content, not the wording: two phrasings of one question share it.
    `answer` and `data` are JSON values the scope's scorer needs; `max_tokens`, when set,
    overrides the scope's `answer_tokens` for this question.
    """

    id: str
    prompt: str
    answer: Any
    phrasing: int = 0
    family: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None


@runtime_checkable
class Scope(Protocol):
    """A question distribution with a scoring function (paper Definition 3.1)."""

    name: str
    description: str
    phrasings: int
    answer_tokens: int  # max_tokens for an answer: enough for the reply the prompt asks for

    def sample(self, rng: np.random.Generator) -> Question:
        """Draw one question (in a phrasing also drawn from rng)."""
        ...

    def rephrase(self, question: Question, phrasing: int) -> Question:
        """The same question in another phrasing (0 <= phrasing < self.phrasings)."""
        ...

    def grade(self, question: Question, answer: str) -> Graded:
        """Read and score a model's answer text."""
        ...

    def score(self, question: Question, answer: str) -> float:
        """The score in [0, 1] of an answer; 0 means ridiculous."""
        ...


@runtime_checkable
class ExplainableScope(Scope, Protocol):
    """A scope whose questions fall into families a program can answer (paper section 5).

    `families` maps each family to its probability under the scope's distribution; the
    probabilities sum to 1 and the families do not overlap.
    """

    families: dict[str, float]
    program_entry: str

    def sample_family(self, rng: np.random.Generator, family: str) -> Question:
        """Draw a question from one family (the renormalized restriction of the scope)."""
        ...

    def program_prompt(self, question: Question) -> str:
        """Ask for a program answering every question of this question's family."""
        ...

    def program_args(self, question: Question) -> list[Any]:
        """The JSON arguments the family's program is called with for this question."""
        ...

    def grade_output(self, question: Question, output: Any) -> Graded:
        """Score a value a program returned for this question."""
        ...
