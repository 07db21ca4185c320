"""The typed results of shared imagination: a generate run, an answer run (summary.json is
`to_dict()`), and the matrix and analyses pooled from run folders."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.methods.imagination.pooling import Pooling
from verstehen.methods.imagination.similarity import SimilarityTable
from verstehen.methods.imagination.stats import (
    DecileRates,
    FictionRate,
    LengthRanks,
    MatrixRow,
    PositionRanks,
    PositionRates,
)
from verstehen.methods.imagination.text import (
    decile_tables,
    decile_text,
    fiction_table,
    fiction_text,
    length_rank_table,
    length_rank_text,
    matrix_headline,
    matrix_tables,
    matrix_text,
    pooling_text,
    position_rank_table,
    position_rank_text,
    position_tables,
    position_text,
    similarity_table,
    similarity_text,
    titled,
)
from verstehen.results import JsonForm, RunOutcome, to_jsonable
from verstehen.text.display import Display, Table
from verstehen.text.tables import plural


def _figures(matrix_png: Path | None, matrix_csv: Path | None) -> list[str]:
    return [] if matrix_png is None else [f"figures: {matrix_png}, {matrix_csv}"]


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
class ImagineGenerateResult(Display, RunOutcome):
    """A generate run: what the question model wrote, per question type (DQ, CQ, SQ)."""

    json_order = ("qm", "by_type", "kept", "failed_calls", "run_dir", "seconds", "usage")
    qm: str
    by_type: dict[str, QuestionCounts]
    kept: int
    failed_calls: int

    def text(self) -> str:
        """What `verstehen imagine generate` prints: questions kept and dropped per type, the
        reasons, and the next command."""
        return "\n".join([*titled(self.tables()), "next: verstehen imagine answer "
                          f"--questions {self.run_dir} --model MODEL ..."])

    def headline(self) -> str:
        """The questions kept, and the slots a usable question filled."""
        filled = sum(t.filled for t in self.by_type.values())
        slots = sum(t.slots for t in self.by_type.values())
        return f"{self.qm}: {plural(self.kept, 'question')} kept, {filled} of {slots} slots filled"

    def tables(self) -> list[Table]:
        """Questions kept and dropped per type, and why they were dropped."""
        rows = [[qtype, f"{t.filled} of {t.slots}", str(t.asked), str(t.kept), str(t.repeated),
                 str(t.dropped), str(t.failed),
                 "; ".join(f"{reason} ({n})" for reason, n in t.reasons.items()) or "-"]
                for qtype, t in self.by_type.items()]
        return [Table(f"{self.qm}: questions by type (DQ direct, CQ after a context, SQ five in "
                      "a row); a slot is filled when a try gives a usable question; a repeat is "
                      "a kept question written before in this run, answered once",
                      ["type", "filled", "written", "kept", "repeats", "dropped", "failed",
                       "why dropped"], rows)]


@dataclass(frozen=True)
class ImagineAnswerResult(Display, RunOutcome):
    """An answer run: κ and α per (content, qtype, QM, AM), answers counted by outcome,
    fictionality verdicts counted and as detection rates per (QM, AM), the figure files, and
    the questions of the question runs that repeated one already read (answered once)."""

    json_order = ("matrix", "outcomes", "fiction_verdicts", "fiction", "failed_calls", "run_dir",
                  "matrix_csv", "matrix_png", "seconds", "usage", "repeated_questions")
    matrix: tuple[MatrixRow, ...]
    outcomes: dict[str, int]
    fiction_verdicts: dict[str, int]
    fiction: tuple[FictionRate, ...]
    failed_calls: int
    matrix_csv: Path | None
    matrix_png: Path | None
    repeated_questions: int = 0

    def text(self) -> str:
        """What `verstehen imagine answer` prints: the κ and α tables, the outcome counts,
        fictionality rates (when asked for) and where the figures are."""
        lines = [matrix_text(self.matrix)]
        if self.repeated_questions:
            lines.append(f"{plural(self.repeated_questions, 'question')} of the question runs "
                         f"{'repeats' if self.repeated_questions == 1 else 'repeat'} one "
                         "already read (same QM, content, type, topic, position, context and "
                         "text): answered once")
        lines.append("outcomes: " + ", ".join(f"{k} {v}"
                                               for k, v in sorted(self.outcomes.items())))
        if self.fiction_verdicts:
            lines.append(fiction_text(self.fiction))
        return "\n".join(lines + _figures(self.matrix_png, self.matrix_csv))

    def headline(self) -> str:
        """κ and α of every cell pooled."""
        return matrix_headline(self.matrix)

    def tables(self) -> list[Table]:
        """The κ and α tables (and fictionality rates, when asked for)."""
        fiction = [fiction_table(self.fiction)] if self.fiction_verdicts else []
        return matrix_tables(self.matrix) + fiction


@dataclass(frozen=True)
class ImagineMatrixResult(Display, JsonForm):
    """Answer runs pooled into one grid, its files (None when the runs hold no answer), and
    how the runs' answers were counted."""

    matrix: tuple[MatrixRow, ...]
    matrix_csv: Path | None
    matrix_png: Path | None
    pooling: Pooling

    def text(self) -> str:
        """What `verstehen imagine matrix` prints: the κ and α tables, what pooling counted
        once, and where the figures are."""
        note = pooling_text(self.pooling)
        return "\n".join([matrix_text(self.matrix), *([note] if note else []),
                          *_figures(self.matrix_png, self.matrix_csv)])

    def tables(self) -> list[Table]:
        """The κ and α tables."""
        return matrix_tables(self.matrix)

    def headline(self) -> str:
        """κ and α of every cell pooled."""
        return matrix_headline(self.matrix)


@dataclass(frozen=True)
class ImagineAnalyzeResult(Display, JsonForm):
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

    def text(self) -> str:
        """What `verstehen imagine analyze` prints: every analysis with data, as tables."""
        sections = []
        if self.length_ranks:
            sections.append(length_rank_text(self.length_ranks)
                            + f"\nfigure: {self.length_ranks_png}")
        if self.deciles:
            sections.append(decile_text(self.deciles))
        if self.positions:
            sections.append(position_text(self.positions))
        if self.position_ranks:
            sections.append(position_rank_text(self.position_ranks))
        if self.warmup_png is not None:
            sections[-1] += f"\nfigure: {self.warmup_png}"
        if self.fiction:
            sections.append(fiction_text(self.fiction))
        for sim in self.similarity:
            sections.append(f"{sim.content} {sim.texts}:\n"
                            + similarity_text(sim.pairs, sim.method))
        if note := pooling_text(self.pooling):
            sections.append(note)
        return "\n\n".join(sections) if sections else "nothing to analyze in these runs"

    def headline(self) -> str:
        """Which analyses have data in these runs."""
        found = [words for words, data in (
            ("length ranks", self.length_ranks), ("κ and α by length decile", self.deciles),
            ("κ and α by position", self.positions), ("length ranks by position",
                                                      self.position_ranks),
            ("fictionality detection", self.fiction), ("question similarity", self.similarity))
            if data]
        return ("analyses with data: " + ", ".join(found) if found
                else "nothing to analyze in these runs")

    def tables(self) -> list[Table]:
        """The tables of every analysis with data."""
        return ([length_rank_table(self.length_ranks)] if self.length_ranks else []) + \
            decile_tables(self.deciles) + position_tables(self.positions) + \
            ([position_rank_table(self.position_ranks)] if self.position_ranks else []) + \
            ([fiction_table(self.fiction)] if self.fiction else []) + \
            [similarity_table(sim) for sim in self.similarity if sim.pairs]
