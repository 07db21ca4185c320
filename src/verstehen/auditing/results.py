"""The typed result of an audit (summary.json is `to_dict()`): one line per (model, target)
across the lenses, and the run folders each lens wrote."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.methods.certification.results import FamilyScore
from verstehen.methods.certification.text import truncated_line
from verstehen.methods.certification.verdict import (
    DOUBLING,
    Criterion,
    Decision,
    Verdict,
    tally,
)
from verstehen.methods.potemkin.results import Incoherence
from verstehen.methods.potemkin.stats import PotemkinRate
from verstehen.results import JsonForm, RunOutcome, omitted_at_default
from verstehen.text.display import Display, Table
from verstehen.text.tables import plural


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


HEADER = ["target", "verdict", "n", "score [L, U]", "keystone", "potemkin C / G / E",
          "incoherence"]
TASKS = ("classify", "generate", "edit")


def _potemkin(rates: dict[str, PotemkinRate]) -> str:
    """The three rates, then how many answers were unreadable (generate and edit ones count
    as wrong, classify ones are left out)."""
    if not rates:
        return "—"
    text = " / ".join("—" if (r := rates.get(t)) is None or r.rate is None else f"{r.rate:.2f}"
                      for t in TASKS)
    unread = sum(r.unparsed for r in rates.values())
    return text + (f" ({unread} unreadable)" if unread else "")


def keystone_word(line: TargetAudit) -> str:
    """right, wrong, ungraded, or a dash for a target that is not a concept."""
    if not line.is_concept:
        return "—"
    return {True: "right", False: "wrong", None: "ungraded"}[line.keystone]


def target_row(line: TargetAudit) -> list[str]:
    """One row of the per-target table."""
    v = line.verdict
    verdict = "no verdict" if v is None else v.decision.words
    score = "" if v is None else f"{v.mean_score:.2f} [{v.score_lower:.2f}, {v.score_upper:.2f}]"
    inc = line.incoherence
    incoherent = "—" if inc is None else (
        f"— ({inc.unparsed} unreadable)" if inc.incoherence is None and inc.unparsed else
        "—" if inc.incoherence is None else f"{inc.incoherence:.2f} ± {inc.se:.2f} (n={inc.n})")
    return [line.name, verdict, asked_by_task(line), score, keystone_word(line),
            _potemkin(line.potemkin), incoherent]


def asked_by_task(line: TargetAudit) -> str:
    """The questions a verdict rests on, with a concept's by task: "8 (C4 G2 E2)"."""
    counts = [f"{task[0].upper()}{line.by_task[task].n}" for task in TASKS
              if task in line.by_task]
    return f"{line.asked} ({' '.join(counts)})" if line.is_concept and counts else str(line.asked)


@dataclass(frozen=True)
class AuditResult(Display, RunOutcome):
    """An audit: the criterion and budget, one line per (model, target), the lenses' run
    folders, failed calls, wall seconds and each model's calls and tokens."""

    json_order = ("run_dir", "models", "subjects", "criterion", "max_questions", "first_look",
                  "sequential_test", "judge", "targets", "runs", "definitions_waiting",
                  "failed_calls", "seconds", "usage")
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
    # the betting test, or (audits before issue 46, whose summary names none) the doubling one
    sequential_test: str = field(default=DOUBLING, metadata=omitted_at_default())

    def of(self, model: str) -> tuple[TargetAudit, ...]:
        """The lines of one model, in target order."""
        return tuple(t for t in self.targets if t.model == model)

    @property
    def verdicts(self) -> dict[tuple[str, str], Decision | None]:
        """Each (model, target key)'s decision."""
        return {(t.model, t.key): t.decision for t in self.targets}

    def headline(self) -> str:
        """Each model's verdicts, how many of each, under the criterion."""
        c = self.criterion
        return "; ".join(f"{model}: {plural(len(self.of(model)), 'target')}: "
                         f"{tally(t.decision for t in self.of(model))}"
                         for model in self.models) + \
            f" (PG {c.pg:g}, RID {c.rid:g}, δ {c.delta:g})"

    def tables(self) -> list[Table]:
        """One table of verdicts per model, one row per target."""
        return [Table(model, HEADER, [target_row(t) for t in self.of(model)])
                for model in self.models]

    def text(self) -> str:
        """What `verstehen audit` prints: each model's table, the deciding answers, and what
        waits for a grade."""
        c = self.criterion
        lines = [f"audit of {', '.join(self.subjects)}: PG {c.pg:g}, RID {c.rid:g}, "
                 f"δ {c.delta:g}, up to {self.max_questions} questions per target (the "
                 f"{self.sequential_test} test, first look {self.first_look})"]
        for model, verdicts in zip(self.models, self.tables(), strict=True):
            lines += ["", model, verdicts.text(), *_deciding_lines(self.of(model))]
        lines += ["", "potemkin rates are of the certification answers given a right "
                  "definition (classify ×2, so chance reads 1; an unreadable generate or edit "
                  "answer counts as wrong, an unreadable classification is left out); "
                  "incoherence is 2 × the rate at which the model contradicts its own example"]
        if waiting := self.definitions_waiting:
            lines.append(f"{plural(waiting, 'definition')} {'waits' if waiting == 1 else 'wait'}"
                         " for a grade: rerun with --judge MODEL, or label them (`verstehen "
                         "annotate export` each folder below, fill the label column, `annotate "
                         "import`), then `verstehen report` the audit again")
            lines += [f"  {runs.potemkin}" for runs in self.runs if runs.potemkin is not None]
        lines += ["", f"run folder: {self.run_dir} ({self.seconds} s)"]
        return "\n".join(lines)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _deciding_lines(lines: tuple[TargetAudit, ...]) -> list[str]:
    """Cut-off answers, then the first answer that decided each target's verdict."""
    out = [cut] if (cut := truncated_line({"truncated": sum(t.truncated for t in lines)})) else []
    out.append("answers that decided it:")
    for line in lines:
        if line.evidence:
            e = line.evidence[0]
            why = f"; {e.reason}" if e.reason else ""
            out.append(f"  {line.name} ({e.task}): {_one_line(e.question, 50)!r} -> "
                       f"{_one_line(e.answer, 40)!r} [{e.outcome}{_one_line(why, 40)}]")
    return out
