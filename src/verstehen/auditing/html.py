"""An audit in the HTML report: one row per target, one column per model, each cell the
verdict with its bounds, the definition, the potemkin rates and incoherence, every number
linked to the answers behind it, and the answers that decided the verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verstehen.auditing.results import AuditResult, LensRuns, TargetAudit, asked_by_task
from verstehen.auditing.summary import summarize_audit
from verstehen.engine.store import RunStore
from verstehen.methods.certification.html import Answers
from verstehen.methods.certification.procedure import deciding
from verstehen.methods.potemkin.html import GradedAnswers, pair_view
from verstehen.methods.potemkin.report import unreadable
from verstehen.methods.potemkin.stats import TASKS
from verstehen.report.html import Page, badge, esc, rate, table
from verstehen.report.tables import plural

Record = dict[str, Any]


class Lenses:
    """One model's lens folders, their records stored in the page's book on first use."""

    def __init__(self, page: Page, runs: LensRuns) -> None:
        self.page = page
        self.answers = Answers(page, runs.certify)
        self.graded = GradedAnswers(page, runs.potemkin) if runs.potemkin else None
        self.pairs: list[tuple[str, Record]] = []
        if runs.incoherence is not None:
            self.pairs = [(f"{runs.incoherence}:{line}", r)
                          for line, r in enumerate(RunStore(runs.incoherence).records())
                          if r["kind"] == "pair" and r["error"] is None]

    def cell(self, t: TargetAudit) -> str:
        """The target's cell: verdict, bounds, definition, potemkin rates, incoherence."""
        asked = [r for r in self.answers.by_scope.get(t.scope, []) if r["kind"] == "answer"]
        v = t.verdict
        words = "no verdict" if v is None else v.decision.words
        parts = [badge(t.decision, self.answers.link(
            words, f"{t.name}: the answers the verdict rests on",
            deciding(asked, t.decision)))]
        if v is not None:
            parts.append(self.answers.link(
                f"score {v.mean_score:.2f} [{v.score_lower:.2f}, {v.score_upper:.2f}], "
                f"n={asked_by_task(t)}",
                f"{t.name}: every answer", asked))
        if t.is_concept:
            parts.append("definition: " + self._definition(t))
            parts.append("potemkin C / G / E: " + " / ".join(
                self._potemkin(t, task, asked) for task in TASKS))
            inc = t.incoherence
            parts.append("incoherence: " + ("—" if inc is None else self._pairs(
                rate(inc.incoherence, inc.se, inc.n), f"{t.name}: the model's own examples",
                t.key)))
            if t.checker_wrong is not None:
                parts.append(f"its examples the checker rejects: {t.checker_wrong:.2f}")
        if t.evidence:
            items = "".join(
                f"<li>{esc(e.task)}: {esc(e.question[:140])} → <b>{esc(e.answer[:140])}</b> "
                f"({esc(e.outcome or '')}{'; ' + esc(e.reason) if e.reason else ''})</li>"
                for e in t.evidence)
            parts.append(f"<details><summary>answers that decided it</summary>"
                         f'<ul class="evidence">{items}</ul></details>')
        return "<br>".join(parts)

    def _definition(self, t: TargetAudit) -> str:
        word = {True: "right", False: "wrong", None: "ungraded"}[t.keystone]
        if self.graded is None:
            return word
        return self.graded.link(word, f"{t.name}: definition",
                                lambda a: a["task"] == "define" and a["concept"] == t.key)

    def _potemkin(self, t: TargetAudit, task: str, asked: list[Record]) -> str:
        r = t.potemkin.get(task)
        if r is None or r.rate is None:
            return "—" + esc(unreadable(r)) if r is not None else "—"
        return self.answers.link(rate(r.rate, r.se) + unreadable(r), f"{t.name}: {task} answers",
                                 [a for a in asked if a["family"] == task])

    def _pairs(self, text: str, title: str, concept: str) -> str:
        ids = [self.page.book.record(key, pair_view(r)) for key, r in self.pairs
               if r["concept"] == concept and r["mismatch"] is not None]
        return self.page.book.link(text, title, ids)


def section(run: Path, page: Page) -> AuditResult:
    """An audit folder, recomputed from its lens folders (labels imported since show)."""
    result = summarize_audit(run, write=False)
    lenses = {runs.model: Lenses(page, runs) for runs in result.runs}
    rows = []
    for key in dict.fromkeys(t.key for t in result.targets):
        lines = {t.model: t for t in result.targets if t.key == key}
        first = next(iter(lines.values()))
        rows.append([f"<b>{esc(first.name)}</b><br>{esc(first.subject)}",
                     *(lenses[m].cell(lines[m]) for m in result.models)])
    c = result.criterion
    note = (f"PG {c.pg:g}, RID {c.rid:g}, δ {c.delta:g}; sequential test up to "
            f"{result.max_questions} questions per target (first look {result.first_look}); "
            "potemkin rates are of these answers given a right definition (classify ×2, so "
            "chance reads 1; an unreadable generate or edit answer counts as wrong, an "
            "unreadable classification is left out); incoherence is 2 × the rate at which "
            f"the model contradicts its own example; run {esc(run.name)}")
    if result.definitions_waiting:
        waiting = result.definitions_waiting
        note += (f"; {plural(waiting, 'definition')} {'waits' if waiting == 1 else 'wait'} for "
                 "a grade (--judge, or `verstehen annotate` the potemkin folder)")
    page.section(f"Audit: {', '.join(result.subjects)}",
                 table(["target", *result.models], rows, cls="audit"), note=note)
    return result
