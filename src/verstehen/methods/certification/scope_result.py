"""One scope's certification: its verdict and what it rests on (a piece of `CertifyResult` that
report.py puts into words without importing results.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from verstehen.methods.certification.verdict import Verdict
from verstehen.results import JsonForm, omitted_at_default


@dataclass(frozen=True)
class FamilyScore(JsonForm):
    """Mean score with its standard error, share ridiculous and n, of one question family."""

    n: int
    mean: float
    se: float
    ridiculous: float


@dataclass(frozen=True)
class RephraseCheck(JsonForm):
    """The same questions asked again in another phrasing: how often the score changed."""

    n: int
    disagreements: int
    rate: float
    se: float


@dataclass(frozen=True)
class ScopeResult(JsonForm):
    """One scope's certification: the verdict (None when calls failed) and what it rests on.

    `outcomes` counts answers by kind (correct, wrong, idk, unparsed, ...); `unparsed_reasons`
    the five most common reasons an answer could not be read; `explained_families` the
    families a program answered (with explanations only); `sandbox_limits` the families whose
    program the sandbox could not run to the end for reasons of its own (a busy machine), by
    family, with the reason: no grade of the model, and no verdict while there are any;
    `model` the model the verdict is of in a run of several models, as its records name it
    (None in a run of one: the run's model).
    """

    scope: str
    asked: int
    failed_calls: int
    verdict: Verdict | None
    outcomes: dict[str, int]
    unparsed_reasons: dict[str, int]
    by_family: dict[str, FamilyScore]
    rephrase: RephraseCheck | None = None
    explained_families: tuple[str, ...] | None = None
    sandbox_limits: dict[str, str] = field(default_factory=dict)
    model: str | None = field(default=None, metadata=omitted_at_default())
