"""The typed results of the Potemkin commands (each one's `to_dict()` is its summary.json).

`PotemkinRunResult` is a run of `potemkin run` (recomputed when labels are imported); the
scores of records files are `stats.PotemkinScores`; `PotemkinIncoherenceResult` and
`PotemkinSelfjudgeResult` are the runs of `potemkin incoherence` and `potemkin selfjudge`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.display import scores_tables
from verstehen.methods.potemkin.incoherence_rate import Incoherence as Incoherence
from verstehen.methods.potemkin.stats import (
    KeystoneExpansion,
    KeystoneShare,
    PotemkinScores,
    RecordCounts,
    Table1,
    Table6,
)
from verstehen.methods.potemkin.text import (
    incoherence_words,
    pairs_by_domain,
    rates_headline,
    tables_text,
)
from verstehen.results import JsonForm, RunOutcome
from verstehen.text.display import Display, Table
from verstehen.text.tables import plural, table


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
class PotemkinRunResult(Display, RunOutcome):
    """A `potemkin run`: keystones, who graded what, and, once use answers are graded, the
    scores (counts ... plot are None until then).

    `grades_by` counts answers by grader (exact, label, judge, human, unparsed, ...);
    `waiting_for_keystone` the use answers per task whose definition nobody graded yet;
    `agreement` judge vs human and checker vs human, on the answers people labelled;
    `records_file` and `plot` are file names in `run_dir`. `seconds` and `usage` are the asking
    run's (None when a folder's summary lost them).
    """

    json_order = ("run_dir", "records_file", "counts", "keystone_rate", "table1", "table6",
                  "keystone_expansion", "plot", "keystone_asked", "keystones", "grades_by",
                  "waiting_for_keystone", "failed_calls", "unparsed_reasons", "agreement",
                  "seconds", "usage")
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

    def grading_lines(self) -> list[str]:
        """The keystones, who graded what, what waits, and the graders' agreement."""
        lines = []
        if self.keystone_asked:
            known = [k for k in self.keystones if k.keystone is not None]
            passed = sum(bool(k.keystone) for k in known)
            lines.append(f"keystone (definition) correct for {passed} of {len(known)} graded "
                         "concepts" + (f"; {plural(len(self.keystones) - len(known), 'definition')}"
                                       " not graded yet" if len(known) < len(self.keystones)
                                       else ""))
        else:
            lines.append("keystone not asked (--tasks without define): rates are not conditioned "
                         "on a definition")
        lines.append("grades by: " + ", ".join(f"{k} {v}"
                                                for k, v in sorted(self.grades_by.items())))
        if self.waiting_for_keystone:
            waiting = sum(self.waiting_for_keystone.values())
            lines.append(f"{plural(waiting, 'use answer')} "
                         f"{'waits for its' if waiting == 1 else 'wait for their'} concept's "
                         "definition to be graded "
                         f"(--judge, or `verstehen annotate export {self.run_dir}`)")
        for name, a in self.agreement.items():
            kappa = "undefined" if a.kappa is None else f"{a.kappa:.2f}"
            lines.append(f"{name.replace('_', ' ')}: Cohen's kappa {kappa}, agree {a.agree:.0%} "
                         f"(n {a.n})")
        return lines

    def text(self) -> str:
        """What `verstehen potemkin run` prints: the keystones, grading and agreement, then
        the tables (or why there are none), and where the records are."""
        lines = self.grading_lines()
        scores = self.scores
        if scores is not None:
            lines += ["", tables_text(scores)]
            if self.plot is not None:
                lines.append(f"plot: {self.run_dir / self.plot}")
        elif _tasks_asked(self.run_dir) == ["define"]:
            lines.append("no use answers: no tables (the run asked only for definitions)")
        else:
            lines.append("no graded use answers yet: no tables")
        if self.unparsed_reasons:
            lines.append("unparsed answers, most common reason: "
                         f"{next(iter(self.unparsed_reasons))}")
        lines.append(f"records: {self.records_path} (all answers: "
                     f"{self.run_dir / 'records.jsonl'})")
        return "\n".join(lines)

    def tables(self) -> list[Table]:
        """Tables 1 and 6 (none while no use answer is graded)."""
        return scores_tables(self.scores)

    def headline(self) -> str:
        """The potemkin rate per task (once use answers are graded), then the keystones."""
        keystones = self.grading_lines()[0]
        scores = self.scores
        return keystones if scores is None else f"{rates_headline(scores.table1)}; {keystones}"


@dataclass(frozen=True)
class CheckerView(JsonForm):
    """On exactly graded concepts: how often the example misses what was asked (with SE), and
    each (right/wrong, coherent/incoherent/unparsed) cell's count."""

    n: int
    wrong: float | None
    se: float | None
    cells: dict[str, int]


@dataclass(frozen=True)
class PotemkinIncoherenceResult(Display, RunOutcome):
    """A `potemkin incoherence` run: incoherence per domain and overall (paper Table 7), the
    checker's view, the five most common reasons an example could not be checked."""

    json_order = ("model", "by_domain", "overall", "checker", "unchecked_reasons", "failed_calls",
                  "run_dir", "seconds", "usage")
    model: str
    by_domain: dict[str, Incoherence]
    overall: Incoherence
    checker: CheckerView
    unchecked_reasons: dict[str, int]
    failed_calls: int

    def text(self) -> str:
        """What `verstehen potemkin incoherence` prints: incoherence per domain and overall
        (paper Table 7) and the checker's view; a missing number says why (every
        self-classification unreadable, every call failed)."""
        pairs = pairs_by_domain(self.run_dir)
        rows = [[name, incoherence_words(i, None if pairs is None else pairs.get(name, [])),
                 str(i.unparsed)]
                for name, i in [*self.by_domain.items(), ("Overall", self.overall)]]
        lines = [f"{self.model}: incoherence = 2 x mismatch rate (0 coherent, 1 chance) ± its "
                 "standard error; unreadable self-classifications are left out",
                 table(["domain", "incoherence", "unparsed"], rows)]
        c = self.checker
        if c.n:
            lines.append(f"\nexactly graded concepts: the example misses what was asked in "
                         f"{_rate(c.wrong, c.se, c.n)}")
            lines.append("  " + "; ".join(f"{k} {v}" for k, v in c.cells.items()))
        if self.unchecked_reasons:
            lines.append("  not checked, most common reason: "
                         f"{next(iter(self.unchecked_reasons))}")
        lines.append(f"\nrecords: {self.run_dir}/records.jsonl ({self.seconds} s)")
        return "\n".join(lines)

    def headline(self) -> str:
        """Incoherence over every domain (0 coherent, 1 chance), or why there is none."""
        pairs = pairs_by_domain(self.run_dir)
        words = incoherence_words(self.overall, None if pairs is None else pairs["Overall"])
        return f"{self.model}: incoherence {words} (0 coherent, 1 chance)"

    def tables(self) -> list[Table]:
        """Paper Table 7: incoherence per domain and overall, with its SE, n and the
        unparsed."""
        rows = [_incoherence_cells(domain, d) for domain, d in self.by_domain.items()]
        return [Table(f"{self.model}: incoherence = 2 x mismatch rate (0 coherent, 1 chance)",
                      ["domain", "incoherence (SE)", "n", "unparsed"],
                      [*rows, _incoherence_cells("Overall", self.overall)])]


@dataclass(frozen=True)
class JudgeSide(JsonForm):
    """One side of the self-judge: judgments read, and the share that were right."""

    n: int
    rate: float | None


@dataclass(frozen=True)
class PotemkinSelfjudgeResult(Display, RunOutcome):
    """A `potemkin selfjudge` run: the lower bound 2 x (1 - judge accuracy) with its SE
    clustered by benchmark question (None when no judgment could be read), and what it rests
    on; `skipped` counts what left a question or judgment out, by reason.

    `concept_step` is "ask" (the model said whether each question relies on a concept and
    named it; `relies_on_concept` of them did, `concept_from_subject` said yes but named none,
    so the MCQ subject stood in) or "subject" (the subject named the concept of every
    question). `upstream_rate` and `upstream_se` are what the paper's code reports: the mean
    of the running rate after each question in draw order, and its SE (std / sqrt(trials)).
    """

    json_order = ("questions", "answered_correctly", "related_questions", "judgments", "skipped",
                  "untagged_answers", "unchanged_alterations", "failed_calls", "potemkin_rate",
                  "se", "judge_accepts_correct", "judge_rejects_altered", "judge_accuracy",
                  "clusters", "run_dir", "model", "seconds", "usage", "concept_step",
                  "relies_on_concept", "concept_from_subject", "upstream_rate", "upstream_se")
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
    model: str
    concept_step: str = "subject"
    relies_on_concept: int | None = None
    concept_from_subject: int = 0
    upstream_rate: float | None = None
    upstream_se: float | None = None

    def text(self) -> str:
        """What `verstehen potemkin selfjudge` prints: the lower bound with its SE, the judge's
        two sides, and what was skipped."""
        r = self
        if r.concept_step == "ask":
            unnamed = (f" ({r.concept_from_subject} named none: the subject stood in)"
                       if r.concept_from_subject else "")
            lines = [f"{r.model}: {r.relies_on_concept} of "
                     f"{plural(r.questions, 'benchmark question')} "
                     f"{'relies' if r.relies_on_concept == 1 else 'rely'} on a concept, by the "
                     f"model's word{unnamed}; {r.answered_correctly} of those answered "
                     f"correctly; {plural(r.related_questions, 'related question')}; "
                     f"{plural(r.judgments, 'judgment')}"]
        else:
            lines = [f"{r.model}: {r.answered_correctly} of "
                     f"{plural(r.questions, 'benchmark question')} answered correctly (concept: "
                     f"the subject's name); {plural(r.related_questions, 'related question')}; "
                     f"{plural(r.judgments, 'judgment')}"]
        # clusters is None exactly when the rate is (no judgment read)
        if r.potemkin_rate is None or r.se is None or r.clusters is None:
            lines.append("potemkin rate (lower bound): —  (no judgment could be read)")
        else:
            lines.append(f"potemkin rate (lower bound) = 2 x (1 - judge accuracy) = "
                         f"{r.potemkin_rate:.2f} ({r.se:.2f}), n "
                         f"{plural(r.judgments, 'judgment')} over "
                         f"{plural(r.clusters, 'question')} (SE clustered by question)")
        if r.upstream_rate is not None and r.upstream_se is not None:
            lines.append(f"  as the paper's code reports it (the mean of the running rate after "
                         f"each question, in draw order): {r.upstream_rate:.2f} "
                         f"({r.upstream_se:.2f})")
        lines += [f"  {words}: {side.rate:.0%} of {side.n}" for side, words in self._sides()
                  if side.n]
        if r.skipped:
            lines.append("skipped: " + ", ".join(f"{k} {v}" for k, v in r.skipped.items()))
        lines.append(f"answers without the final tag (whole reply used): {r.untagged_answers}; "
                     f"alterations identical to the answer: {r.unchanged_alterations}")
        lines.append(f"\nrecords: {r.run_dir}/records.jsonl ({r.seconds} s)")
        return "\n".join(lines)

    def headline(self) -> str:
        """The lower bound on the potemkin rate, with its SE and what it rests on."""
        if self.potemkin_rate is None or self.se is None:
            return f"{self.model}: potemkin rate (lower bound) —: no judgment could be read"
        return (f"{self.model}: potemkin rate (lower bound) {self.potemkin_rate:.2f} "
                f"({self.se:.2f}), {plural(self.judgments, 'judgment')} over "
                f"{plural(self.clusters or 0, 'question')}")

    def tables(self) -> list[Table]:
        """The self-judge's lower bound and the judge's two sides, one row each."""
        bound = "—" if self.potemkin_rate is None or self.se is None else (
            f"{self.potemkin_rate:.2f} ({self.se:.2f})")
        sides = [[words, "—" if side.rate is None else f"{side.rate:.0%}", str(side.n)]
                 for side, words in self._sides()]
        return [Table(f"{self.model}: self-judged potemkin rate", ["", "value", "n"],
                      [["potemkin rate (lower bound) = 2 x (1 - judge accuracy)", bound,
                        str(self.judgments)], *sides])]

    def _sides(self) -> list[tuple[JudgeSide, str]]:
        return [(self.judge_accepts_correct, "judged its own answer correct"),
                (self.judge_rejects_altered, "judged the altered answer incorrect")]


def _tasks_asked(run_dir: Path) -> list[str] | None:
    """The tasks a run asked (run.json), None when its folder is not at hand."""
    if not (run_dir / "run.json").is_file():
        return None
    tasks: list[str] | None = RunStore(run_dir).info().get("config", {}).get("tasks")
    return tasks


def _rate(value: float | None, se: float | None, n: int) -> str:
    return f"—  (n {n})" if value is None or se is None else f"{value:.2f} ({se:.2f})  n {n}"


def _incoherence_cells(name: str, i: Incoherence) -> list[str]:
    rate = "—" if i.incoherence is None or i.se is None else f"{i.incoherence:.2f} ({i.se:.2f})"
    return [name, rate, str(i.n), str(i.unparsed)]
