"""How pooled runs were counted: a piece of the pooled results (results.py) that report.py puts
into words without importing results.py."""

from __future__ import annotations

from dataclasses import dataclass

from verstehen.results import JsonForm


@dataclass(frozen=True)
class Pooling(JsonForm):
    """How pooled runs were counted. Answers (and fictionality verdicts) read, and the repeats
    among them counted once (the same question answered again by the same AM: the last run's
    answer counts); answers of runs made before question ids hashed the question whose
    question runs are gone (kept under their stored ids, which other seeds' runs can share).
    Questions read and the repeats counted once (the same question written again); None where
    no question was read (`imagine matrix`)."""

    answers: int
    repeated_answers: int
    unmatched_answers: int
    questions: int | None = None
    repeated_questions: int | None = None
