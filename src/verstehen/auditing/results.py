"""The typed result of an audit (summary.json is `to_dict()`): one line per (model, target)
across the lenses, and the run folders each lens wrote."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.runner import ModelUsage
from verstehen.methods.certification.results import FamilyScore
from verstehen.methods.certification.verdict import Criterion, Decision, Verdict
from verstehen.methods.potemkin.results import Incoherence
from verstehen.methods.potemkin.stats import PotemkinRate
from verstehen.report.tables import table
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
    incoherent = "—" if inc is None or inc.incoherence is None else (
        f"{inc.incoherence:.2f} ± {inc.se:.2f} (n={inc.n})")
    return [line.name, verdict, asked_by_task(line), score, keystone_word(line),
            _potemkin(line.potemkin), incoherent]


def asked_by_task(line: TargetAudit) -> str:
    """The questions a verdict rests on, with a concept's by task: "8 (C4 G2 E2)"."""
    counts = [f"{task[0].upper()}{line.by_task[task].n}" for task in TASKS
              if task in line.by_task]
    return f"{line.asked} ({' '.join(counts)})" if line.is_concept and counts else str(line.asked)


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

    def text(self) -> str:
        """Each model's table of verdicts as plain text (what `print` and a notebook show)."""
        c = self.criterion
        head = (f"audit of {', '.join(self.subjects)}: PG {c.pg:g}, RID {c.rid:g}, "
                f"δ {c.delta:g}; run folder {self.run_dir}")
        tables = [f"{model}\n{table(HEADER, [target_row(t) for t in self.of(model)])}"
                  for model in self.models]
        return "\n\n".join([head, *tables])

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        """IPython's text display: the tables, not the dataclass's fields."""
        printer.text(self.text())  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        """A notebook's display: one HTML table per model."""
        c = self.criterion
        parts = [f"<p>audit of {html.escape(', '.join(self.subjects))}: PG {c.pg:g}, RID "
                 f"{c.rid:g}, δ {c.delta:g}; run folder <code>{html.escape(str(self.run_dir))}"
                 "</code></p>"]
        for model in self.models:
            head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
            rows = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in
                                            target_row(t)) + "</tr>" for t in self.of(model))
            parts.append(f"<h4>{html.escape(model)}</h4><table><thead><tr>{head}</tr></thead>"
                         f"<tbody>{rows}</tbody></table>")
        return "\n".join(parts)
