"""The typed results of the Potemkin commands (each one's `to_dict()` is its summary.json).

`PotemkinResult` is a run of `potemkin run` (recomputed when labels are imported); the scores of
records files are `stats.PotemkinScores`; `IncoherenceResult` and `SelfJudgeResult` are the
runs of `potemkin incoherence` and `potemkin selfjudge`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.runner import ModelUsage
from verstehen.methods.potemkin.stats import (
    KeystoneExpansion,
    KeystoneShare,
    PotemkinScores,
    RecordCounts,
    Table1,
    Table6,
)
from verstehen.results import JsonForm, json_key


@dataclass(frozen=True)
class Keystone(JsonForm):
    """Whether `model` defined `concept` correctly; None while nobody has graded it."""

    model: str
    concept: str
    keystone: bool | None


@dataclass(frozen=True)
class Agreement(JsonForm):
    """Two graders on the same answers: how many, Cohen's kappa (None when undefined) and the
    share on which they agree."""

    n: int
    kappa: float | None
    agree: float


@dataclass(frozen=True)
class PotemkinResult(JsonForm):
    """A `potemkin run`: keystones, who graded what, and, once use answers are graded, the
    scores (counts ... plot are None until then).

    `grades_by` counts answers by grader (exact, label, judge, human, unparsed, ...);
    `waiting_for_keystone` the use answers per task whose definition nobody graded yet;
    `agreement` judge vs human and checker vs human, on the answers people labelled;
    `records_file` and `plot` are file names in `run_dir`. `seconds` and `usage` are the asking
    run's (None when a folder's summary lost them).
    """

    run_dir: Path = field(metadata=json_key("run"))
    records_file: str
    counts: RecordCounts | None
    keystone_rate: dict[str, KeystoneShare] | None
    table1: Table1 | None
    table6: Table6 | None
    keystone_expansion: KeystoneExpansion | None
    plot: str | None
    keystone_asked: bool
    keystones: tuple[Keystone, ...]
    grades_by: dict[str, int]
    waiting_for_keystone: dict[str, int]
    failed_calls: int
    unparsed_reasons: dict[str, int]
    agreement: dict[str, Agreement]
    seconds: float | None
    usage: dict[str, ModelUsage] | None

    @property
    def scores(self) -> PotemkinScores | None:
        """The scores of the graded use answers; None while there are none."""
        if (self.counts is None or self.keystone_rate is None or self.table1 is None
                or self.table6 is None or self.keystone_expansion is None):
            return None
        return PotemkinScores(self.counts, self.keystone_rate, self.table1, self.table6,
                              self.keystone_expansion, self.plot)

    @property
    def records_path(self) -> Path:
        """The standard records file of the run (what `potemkin score` reads)."""
        return self.run_dir / self.records_file


@dataclass(frozen=True)
class Incoherence(JsonForm):
    """2 x the mismatch rate over the examples the model classified, its SE and n; `unparsed`
    counts classifications that gave no yes or no."""

    n: int
    unparsed: int
    incoherence: float | None
    se: float | None


@dataclass(frozen=True)
class CheckerView(JsonForm):
    """On exactly graded concepts: how often the example misses what was asked (with SE), and
    each (right/wrong, coherent/incoherent/unparsed) cell's count."""

    n: int
    wrong: float | None
    se: float | None
    cells: dict[str, int]


@dataclass(frozen=True)
class IncoherenceResult(JsonForm):
    """A `potemkin incoherence` run: incoherence per domain and overall (paper Table 7), the
    checker's view, the five most common reasons an example could not be checked."""

    model: str
    by_domain: dict[str, Incoherence]
    overall: Incoherence
    checker: CheckerView
    unchecked_reasons: dict[str, int]
    failed_calls: int
    run_dir: Path = field(metadata=json_key("run"))
    seconds: float
    usage: dict[str, ModelUsage]


@dataclass(frozen=True)
class JudgeSide(JsonForm):
    """One side of the self-judge: judgments read, and the share that were right."""

    n: int
    rate: float | None


@dataclass(frozen=True)
class SelfJudgeResult(JsonForm):
    """A `potemkin selfjudge` run: the lower bound 2 x (1 - judge accuracy) with its SE
    clustered by benchmark question (None when no judgment could be read), and what it rests
    on; `skipped` counts what left a question or judgment out, by reason.

    `concept_step` is "ask" (the model said whether each question relies on a concept and
    named it; `relies_on_concept` of them did, `concept_from_subject` said yes but named none,
    so the MCQ subject stood in) or "subject" (the subject named the concept of every
    question). `upstream_rate` and `upstream_se` are what the paper's code reports: the mean
    of the running rate after each question in draw order, and its SE (std / sqrt(trials)).
    """

    questions: int
    answered_correctly: int
    related_questions: int
    judgments: int
    skipped: dict[str, int]
    untagged_answers: int
    unchanged_alterations: int
    failed_calls: int
    potemkin_rate: float | None
    se: float | None
    judge_accepts_correct: JudgeSide
    judge_rejects_altered: JudgeSide
    judge_accuracy: float | None
    clusters: int | None
    run_dir: Path = field(metadata=json_key("run"))
    model: str
    seconds: float
    usage: dict[str, ModelUsage]
    concept_step: str = "subject"
    relies_on_concept: int | None = None
    concept_from_subject: int = 0
    upstream_rate: float | None = None
    upstream_se: float | None = None
