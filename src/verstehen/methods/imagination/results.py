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
    PositionRanks,
    PositionRates,
)
from verstehen.results import JsonForm, json_key, to_jsonable


@dataclass(frozen=True)
class QuestionCounts(JsonForm):
    """One question type of a generate run: replies read (asked) and kept; slots, and those a
    try filled; replies dropped, with the six most common reasons; slots whose call failed;
    kept questions that repeat one kept before (answered and counted once)."""

    asked: int
    kept: int
    slots: int
    filled: int
    dropped: int
    reasons: dict[str, int]
    failed: int
    repeated: int = 0  # summaries written before repeats were counted have none


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
    """An answer run: κ and α per (content, qtype, QM, AM), answers counted by outcome,
    fictionality verdicts counted and as detection rates per (QM, AM), the figure files, and
    the questions of the question runs that repeated one already read (answered once)."""

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
    repeated_questions: int = 0


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


@dataclass(frozen=True)
class MatrixResult(JsonForm):
    """Answer runs pooled into one grid, its files (None when the runs hold no answer), and
    how the runs' answers were counted."""

    matrix: tuple[MatrixRow, ...]
    matrix_csv: Path | None
    matrix_png: Path | None
    pooling: Pooling


@dataclass(frozen=True)
class AnalyzeResult(JsonForm):
    """The analyses of sections 3.1-3.4 over run folders; an analysis without data is empty.

    Length ranks of the designated answer (and the figure), κ and α by question length and by
    position in a sequence, length ranks by position (with κ and α by position, the warm-up
    figure), fictionality detection rates, question similarity between QMs (empty when not
    asked for), and how the runs' questions and answers were counted.
    """

    length_ranks: tuple[LengthRanks, ...]
    length_ranks_png: Path | None
    deciles: tuple[DecileRates, ...]
    positions: tuple[PositionRates, ...]
    position_ranks: tuple[PositionRanks, ...]
    warmup_png: Path | None
    fiction: tuple[FictionRate, ...]
    similarity: tuple[SimilarityTable, ...]
    pooling: Pooling

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of `imagine analyze --json`: each analysis with data, keyed by its
        rows' labels ("QM content qtype", "content qtype AM", "AM", "position", "QM | AM",
        "content texts" then "QM | QM"), the pooling counts, and where the figures went."""
        sections = {
            "length_ranks": {f"{r.qm} {r.content} {r.qtype}": r.fractions
                             for r in self.length_ranks},
            "deciles": {f"{r.content} {r.qtype} {r.am}": r.rates for r in self.deciles},
            "positions": {r.am: r.rates for r in self.positions},
            "position_ranks": {str(r.position): {"n": r.n, "fractions": r.fractions}
                               for r in self.position_ranks},
            "fiction": {f"{r.qm} | {r.am}": (r.rate, r.se, r.judged, r.unparsed)
                        for r in self.fiction},
            "similarity": {f"{t.content} {t.texts}": {f"{p.qm_a} | {p.qm_b}": p.cosine
                                                      for p in t.pairs}
                           for t in self.similarity}}
        out = {name: to_jsonable(value) for name, value in sections.items() if value}
        figures = {name: str(path) for name, path in (("length_ranks", self.length_ranks_png),
                                                      ("warm_up", self.warmup_png)) if path}
        return {**out, "pooling": self.pooling.to_dict(), **({"figures": figures} if figures
                                                              else {})}
