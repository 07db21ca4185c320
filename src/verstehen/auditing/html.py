"""An audit in the HTML report: the verdict figure (a forest plot of [L, U] against PG and
the ridiculous rate against RID) and the Potemkin lens as a picture, then one row per target,
one column per model, each cell the verdict with its bounds, the definition, the potemkin
rates and incoherence, every mark and number linked to the answers behind it, and the answers
that decided the verdict. Several audit folders are drawn side by side in one figure and one
table (`compare`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.auditing.figure import Column, Row, figure_html, legend, verdict_figure
from verstehen.auditing.potemkin_figure import potemkin_figure, potemkin_legend
from verstehen.auditing.results import AuditResult, LensRuns, TargetAudit, asked_by_task
from verstehen.auditing.summary import summarize_audit
from verstehen.domains.catalog import canonical_name
from verstehen.engine.store import RunStore
from verstehen.methods.certification.html import Answers, rests_on_title
from verstehen.methods.certification.procedure import rests_on
from verstehen.methods.certification.records import ReadAnswer
from verstehen.methods.potemkin.html import GradedAnswers, pair_view
from verstehen.methods.potemkin.lines import PairRecord, numbered_pairs
from verstehen.methods.potemkin.stats import TASKS
from verstehen.methods.potemkin.text import incoherence_words, unreadable
from verstehen.report.html import HEADING_CHARS, Book, Page, badge, rate, table
from verstehen.report.markup import Html, concat, el, join
from verstehen.report.svg import clip
from verstehen.text.tables import plural


class Lenses:
    """One model's lens folders, their records stored in the page's book on first use."""

    def __init__(self, page: Page, runs: LensRuns) -> None:
        self.page = page
        self.answers = Answers(page, runs.certify)
        self.graded = GradedAnswers(page, runs.potemkin) if runs.potemkin else None
        self.pairs_made: list[tuple[str, PairRecord]] = []
        if runs.incoherence is not None:
            self.pairs_made = [(f"{runs.incoherence}:{line}", r) for line, r
                               in numbered_pairs(RunStore(runs.incoherence).records())]

    def asked(self, t: TargetAudit) -> list[ReadAnswer]:
        """The certification answers the target's verdict counts (rephrasings left out)."""
        return [r for r in self.answers.by_scope.get(t.scope, []) if r["kind"] == "answer"]

    def _group(self, title: str, records: Sequence[ReadAnswer]) -> int | None:
        return self.page.book.group(title, self.answers.ids(records))

    def deciding(self, t: TargetAudit) -> int | None:
        """Every answer the verdict rests on, those that decided it first (as the table's
        verdict links)."""
        asked = self.asked(t)
        return self._group(rests_on_title(t.name, asked, t.decision), rests_on(asked, t.decision))

    def answers_of(self, t: TargetAudit) -> int | None:
        """Every answer of the target."""
        return self._group(f"{t.name}: every answer", self.asked(t))

    def ridiculous(self, t: TargetAudit) -> int | None:
        """The answers scored 0, or every answer when none was."""
        zero = [r for r in self.asked(t) if r["score"] == 0.0]
        return (self._group(f"{t.name}: the answers scored 0 (ridiculous)", zero) if zero
                else self.answers_of(t))

    def task(self, t: TargetAudit, task: str) -> int | None:
        """The answers of one task."""
        return self._group(f"{t.name}: {task} answers",
                           [a for a in self.asked(t) if a["family"] == task])

    def definition(self, t: TargetAudit) -> int | None:
        """The model's definition of the concept with its grade."""
        if self.graded is None:
            return None
        graded = self.graded
        ids = [self.page.book.record(f"{graded.run}:{i}", graded.view(i))
               for i, a in graded.answers.items()
               if a["task"] == "define" and canonical_name(a["concept"]) == t.key]
        return self.page.book.group(f"{t.name}: definition", ids)

    def pairs(self, t: TargetAudit) -> int | None:
        """The model's own examples behind incoherence: those it classified, or every one
        when it classified none readably."""
        mine = [(key, r) for key, r in self.pairs_made if canonical_name(r["concept"]) == t.key]
        counted = [(key, r) for key, r in mine if r["mismatch"] is not None] or mine
        return self.page.book.group(f"{t.name}: the model's own examples",
                                    [self.page.book.record(key, pair_view(r))
                                     for key, r in counted])

    def cell(self, t: TargetAudit) -> Html:
        """The target's cell: verdict, bounds, definition, potemkin rates, incoherence."""
        asked = self.asked(t)
        v = t.verdict
        words = "no verdict" if v is None else v.decision.words
        parts: list[Html | str] = [badge(t.decision, self.answers.link(
            words, rests_on_title(t.name, asked, t.decision), rests_on(asked, t.decision)))]
        if v is not None:
            parts.append(self.answers.link(
                f"score {v.mean_score:.2f} [{v.score_lower:.2f}, {v.score_upper:.2f}], "
                f"n={asked_by_task(t)}",
                f"{t.name}: every answer", asked))
        if t.is_concept:
            parts.append(concat("definition: ", self._definition(t)))
            parts.append(concat("potemkin C / G / E: ", join(" / ", (
                self._potemkin(t, task, asked) for task in TASKS))))
            inc = t.incoherence
            mine = [r for _, r in self.pairs_made if canonical_name(r["concept"]) == t.key]
            parts.append(concat("incoherence: ", Book.link_to(incoherence_words(inc, mine),
                                                              self.pairs(t))))
            if t.checker_wrong is not None:
                parts.append(f"its examples the checker rejects: {t.checker_wrong:.2f}")
        if t.evidence:
            items = (el("li", f"{e.task}: {e.question[:140]} → ", el("b", e.answer[:140]),
                        f" ({e.outcome or ''}{'; ' + e.reason if e.reason else ''})")
                     for e in t.evidence)
            parts.append(el("details", el("summary", "answers that decided it"),
                            el("ul", items, class_="evidence")))
        return join(el("br"), parts)

    def _definition(self, t: TargetAudit) -> Html | str:
        word = {True: "right", False: "wrong", None: "ungraded"}[t.keystone]
        if self.graded is None:
            return word
        return self.graded.link(word, f"{t.name}: definition",
                                lambda a: a["task"] == "define" and a["concept"] == t.key)

    def _potemkin(self, t: TargetAudit, task: str, asked: list[ReadAnswer]) -> Html | str:
        r = t.potemkin.get(task)
        if r is None or r.rate is None:
            return "—" + unreadable(r) if r is not None else "—"
        return self.answers.link(rate(r.rate, r.se) + unreadable(r), f"{t.name}: {task} answers",
                                 [a for a in asked if a["family"] == task])


def columns_of(audits: Sequence[AuditResult], page: Page) -> list[tuple[Column, Lenses]]:
    """One column per model of each audit (with its lenses, which draw its table cells),
    labelled by the model, and by the folder too where a model is in more than one audit."""
    models = [m for result in audits for m in result.models]
    columns = []
    for result in audits:
        for runs in result.runs:
            lenses = Lenses(page, runs)
            label = clip(runs.model if models.count(runs.model) == 1 else (
                f"{runs.model} ({result.run_dir.name})"), HEADING_CHARS)
            columns.append((Column(label, result.criterion,
                                   {t.key: t for t in result.of(runs.model)}, lenses), lenses))
    return columns


def rows_of(audits: Sequence[AuditResult]) -> list[Row]:
    """Every target of the audits, in the order they first appear."""
    rows: dict[str, Row] = {}
    for result in audits:
        for t in result.targets:
            rows.setdefault(t.key, Row(t.key, t.name, t.subject, t.is_concept))
    return list(rows.values())


def figures_and_table(audits: Sequence[AuditResult], page: Page) -> Html:
    """The verdict figure with its legend, the Potemkin picture with its own, and the table
    of targets by model, for one audit or several side by side."""
    drawn, rows = columns_of(audits, page), rows_of(audits)
    columns = [column for column, _ in drawn]
    waiting = sum(result.definitions_waiting for result in audits)
    cells = []
    for row in rows:
        cells.append([concat(el("b", row.name), el("br"), row.subject),
                      *(lenses.cell(column.lines[row.key]) if row.key in column.lines
                        else "— (not in this audit)" for column, lenses in drawn)])
    return (figure_html(verdict_figure(rows, columns), legend(columns))
            + figure_html(potemkin_figure(rows, columns), potemkin_legend(waiting))
            + table(["target", *(c.label for c in columns)], cells, cls="audit"))


def _note(result: AuditResult, run: Path) -> Html:
    note = (f"sequential test up to {result.max_questions} questions per target (first look "
            f"{result.first_look}); potemkin rates are of these answers given a right "
            "definition (classify ×2, so chance reads 1; an unreadable generate or edit answer "
            "counts as wrong, an unreadable classification is left out); incoherence is 2 × "
            f"the rate at which the model contradicts its own example; run {run.name}")
    if result.definitions_waiting:
        waiting = result.definitions_waiting
        note += (f"; {plural(waiting, 'definition')} {'waits' if waiting == 1 else 'wait'} for "
                 "a grade (--judge, or `verstehen annotate` the potemkin folder)")
    return el("p", note, class_="note")


def section(run: Path, page: Page) -> AuditResult:
    """An audit folder, recomputed from its lens folders (labels imported since show): the
    figures first, then the table and a note on the budget and the rates."""
    result = summarize_audit(run, write=False)
    page.section(f"Audit: {', '.join(result.subjects)}",
                 figures_and_table([result], page) + _note(result, run))
    return result


def compare(runs: Sequence[Path], page: Page) -> None:
    """Several audit folders as one: every model of each in one figure and one table (a target
    one audit lacks is an empty cell; a model in two is labelled by its folder too)."""
    audits = [summarize_audit(run, write=False) for run in runs]
    subjects = ", ".join(dict.fromkeys(s for result in audits for s in result.subjects))
    page.section(f"Audits side by side: {subjects}", figures_and_table(audits, page)
                 + el("p", f"audits {', '.join(run.name for run in runs)}; each is shown on "
                      "its own below", class_="note"))
