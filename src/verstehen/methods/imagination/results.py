"""The typed results of shared imagination: a generate run, an answer run (summary.json is
`to_dict()`), and the matrix and analyses pooled from run folders."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verstehen.engine.runner import ModelUsage
from verstehen.methods.imagination.similarity import SimilarityTable
from verstehen.methods.imagination.stats import (
    DecileRates,
    FictionRate,
    LengthRanks,
    MatrixRow,
    PositionRates,
)
from verstehen.results import JsonForm, json_key, to_jsonable


@dataclass(frozen=True)
class QuestionCounts(JsonForm):
    """One question type of a generate run: replies read (asked) and kept; slots, and those a
    try filled; replies dropped, with the six most common reasons; slots whose call failed."""

    asked: int
    kept: int
    slots: int
    filled: int
    dropped: int
    reasons: dict[str, int]
    failed: int


@dataclass(frozen=True)
class GenerateResult(JsonForm):
    """A generate run: what the question model wrote, per question type (DQ, CQ, SQ)."""

    qm: str
    by_type: dict[str, QuestionCounts]
    kept: int
    failed_calls: int
    run_dir: Path = field(metadata=json_key("run"))
    seconds: float
    usage: dict[str, ModelUsage]


@dataclass(frozen=True)
class AnswerResult(JsonForm):
    """An answer run: κ and α per (qtype, QM, AM), answers counted by outcome, fictionality
    verdicts counted and as detection rates per (QM, AM), and the figure files."""

    matrix: tuple[MatrixRow, ...]
    outcomes: dict[str, int]
    fiction_verdicts: dict[str, int]
    fiction: tuple[FictionRate, ...]
    failed_calls: int
    run_dir: Path = field(metadata=json_key("run"))
    matrix_csv: Path | None
    matrix_png: Path | None
    seconds: float
    usage: dict[str, ModelUsage]


@dataclass(frozen=True)
class MatrixResult(JsonForm):
    """Answer runs pooled into one grid, and its files (None when the runs hold no answer)."""

    matrix: tuple[MatrixRow, ...]
    matrix_csv: Path | None
    matrix_png: Path | None


@dataclass(frozen=True)
class AnalyzeResult(JsonForm):
    """The analyses of sections 3.1-3.4 over run folders; an analysis without data is empty.

    Length ranks of the designated answer (and the figure), κ and α by question length and by
    position in a sequence, fictionality detection rates, question similarity between QMs
    (empty when not asked for).
    """

    length_ranks: tuple[LengthRanks, ...]
    length_ranks_png: Path | None
    deciles: tuple[DecileRates, ...]
    positions: tuple[PositionRates, ...]
    fiction: tuple[FictionRate, ...]
    similarity: tuple[SimilarityTable, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of `imagine analyze --json`: each analysis with data, keyed by its
        rows' labels ("QM qtype", "qtype AM", "AM", "QM | AM", "QM | QM")."""
        sections = {
            "length_ranks": {f"{r.qm} {r.qtype}": r.fractions for r in self.length_ranks},
            "deciles": {f"{r.qtype} {r.am}": r.rates for r in self.deciles},
            "positions": {r.am: r.rates for r in self.positions},
            "fiction": {f"{r.qm} | {r.am}": (r.rate, r.se, r.judged, r.unparsed)
                        for r in self.fiction},
            "similarity": {t.texts: {f"{p.qm_a} | {p.qm_b}": p.cosine for p in t.pairs}
                           for t in self.similarity}}
        return {name: to_jsonable(value) for name, value in sections.items() if value}
