"""The typed results of certification: per scope, and per run (summary.json is `to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.runner import ModelUsage
from verstehen.methods.certification.verdict import Criterion, Verdict
from verstehen.results import JsonForm, json_key


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
    family, with the reason: no grade of the model, and no verdict while there are any.
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


@dataclass(frozen=True)
class CertifyResult(JsonForm):
    """A certification run: one model, one criterion, one verdict per scope, the run folder."""

    run_dir: Path = field(metadata=json_key("run"))
    model: str
    criterion: Criterion
    scopes: tuple[ScopeResult, ...]
    seconds: float
    usage: dict[str, ModelUsage]

    @property
    def verdict(self) -> Verdict | None:
        """The verdict of the run's only scope (None when its calls failed)."""
        if len(self.scopes) != 1:
            raise ValueError(f"this run certified {len(self.scopes)} scopes: read "
                             ".scopes[i].verdict (or .verdicts)")
        return self.scopes[0].verdict

    @property
    def verdicts(self) -> dict[str, Verdict | None]:
        """Each scope's verdict, by scope name."""
        return {s.scope: s.verdict for s in self.scopes}

    @property
    def failed_calls(self) -> int:
        """Calls that failed after every retry, over all scopes (a rerun tries them again)."""
        return sum(s.failed_calls for s in self.scopes)
