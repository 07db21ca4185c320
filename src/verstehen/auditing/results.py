"""The typed result of an audit (summary.json is `to_dict()`): one line per (model, target)
across the lenses, and the run folders each lens wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.runner import ModelUsage
from verstehen.methods.certification.results import FamilyScore
from verstehen.methods.certification.verdict import Criterion, Decision, Verdict
from verstehen.methods.potemkin.results import Incoherence
from verstehen.methods.potemkin.stats import PotemkinRate
from verstehen.results import JsonForm, json_key


@dataclass(frozen=True)
class Evidence(JsonForm):
    """One answer that decided a verdict: the task, the question, the reply (both shortened),
    its outcome and score, and why it was graded so."""

    task: str
    question: str
    answer: str
    outcome: str | None
    score: float | None
    reason: str | None


@dataclass(frozen=True)
class TargetAudit(JsonForm):
    """One model on one target, through every lens that applies.

    `verdict` is certification's (None when calls failed); `by_task` its mean score per task.
    `keystone` says whether the definition was right (None: not graded yet, or not a concept);
    `potemkin` the potemkin rate per task of the certification answers given a right
    definition (empty until the keystone is graded true); `incoherence` 2 x the rate at which
    the model's classification of its own example contradicts what it was asked to make,
    `checker_wrong` the share of those examples the checker says miss what was asked, and
    `truncated` how many certification answers were cut off at the token cap and failed.
    """

    model: str
    key: str
    name: str
    subject: str
    scope: str
    verdict: Verdict | None
    asked: int
    by_task: dict[str, FamilyScore]
    keystone: bool | None
    potemkin: dict[str, PotemkinRate]
    incoherence: Incoherence | None
    checker_wrong: float | None
    evidence: tuple[Evidence, ...]
    truncated: int = 0  # answers cut off at the token cap that failed for it (scored 0)

    @property
    def is_concept(self) -> bool:
        """Whether the target is a concept (asked to define and to make examples), not a
        scope of arithmetic."""
        return self.subject != "arithmetic"

    @property
    def decision(self) -> Decision | None:
        """The certification decision (None without a verdict)."""
        return None if self.verdict is None else self.verdict.decision


@dataclass(frozen=True)
class LensRuns(JsonForm):
    """The run folders one model's lenses wrote inside the audit folder (None: not run)."""

    model: str
    certify: Path
    potemkin: Path | None
    incoherence: Path | None


@dataclass(frozen=True)
class AuditResult(JsonForm):
    """An audit: the criterion and budget, one line per (model, target), the lenses' run
    folders, failed calls, wall seconds and each model's calls and tokens."""

    run_dir: Path = field(metadata=json_key("run"))
    models: tuple[str, ...]
    subjects: tuple[str, ...]
    criterion: Criterion
    max_questions: int
    first_look: int
    judge: str | None
    targets: tuple[TargetAudit, ...]
    runs: tuple[LensRuns, ...]
    definitions_waiting: int
    failed_calls: int
    seconds: float | None
    usage: dict[str, ModelUsage] | None

    def of(self, model: str) -> tuple[TargetAudit, ...]:
        """The lines of one model, in target order."""
        return tuple(t for t in self.targets if t.model == model)

    @property
    def verdicts(self) -> dict[tuple[str, str], Decision | None]:
        """Each (model, target key)'s decision."""
        return {(t.model, t.key): t.decision for t in self.targets}
