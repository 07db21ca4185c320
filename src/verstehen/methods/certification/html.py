"""Certification in the HTML report: each scope's verdict with its bounds, the score per task,
the rephrase check, every number linked to the answers behind it; several runs side by side."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.methods.certification.procedure import deciding, rests_on
from verstehen.methods.certification.records import AnswerRecord, ReadAnswer, read_answers
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.methods.certification.text import explain, unscored_lines
from verstehen.methods.certification.verdict import Criterion, Decision, Verdict
from verstehen.report.html import Page, RecordView, badge, num, table
from verstehen.report.markup import Content, Html, concat, el, join
from verstehen.results import load_result


def answer_view(record: AnswerRecord) -> RecordView:
    """A certification answer: the question, the reply, outcome and score, and why."""
    again = " (rephrased)" if record["kind"] == "rephrase" else ""
    title = f"{record['scope']} · {record['family']} · question {record['index']}{again}"
    answer = record["text"] if record["error"] is None else f"(the call failed: {record['error']})"
    score = record["score"]
    grade = f"{record['outcome']}, score {score:g}" if score is not None else "not graded"
    expected = "" if record["expected"] is None else f"expected: {record['expected']}"
    why = "; ".join(x for x in (record.get("reason") or "", expected) if x)
    return RecordView(title, record["prompt"], answer or "", grade, why)


def rule_sentence(c: Criterion) -> str:
    """The certification rule in one sentence, with the criterion's values."""
    return (f"[L, U] bounds the true mean score: a model understands when L ≥ PG ({c.pg:g}) and "
            f"the ridiculous rate's upper bound ≤ RID ({c.rid:g}), does not understand when "
            f"U < PG or the ridiculous rate's lower bound > RID, and is inconclusive otherwise; "
            f"a decision is wrong with probability at most δ ({c.delta:g}), so it holds at "
            f"confidence 1 − δ ({1 - c.delta:.0%}).")


def bounds(v: Verdict) -> str:
    """"0.31 [0.10, 0.62]": the mean score and its bounds."""
    return f"{v.mean_score:.2f} [{v.score_lower:.2f}, {v.score_upper:.2f}]"


def rests_on_title(name: str, asked: Sequence[ReadAnswer], decision: Decision | None) -> str:
    """The title of the panel of every answer a verdict rests on (`rests_on`), saying which
    come first: those that decided it."""
    graded = [r for r in asked if r["score"] is not None]
    decided = len(deciding(graded, decision))
    first = {Decision.DOES_NOT_UNDERSTAND: "scored 0", Decision.UNDERSTANDS: "scored above 0"}
    return f"{name}: the answers the verdict rests on" + (
        f", the {decided} {first[decision]} (which decided it) first"
        if decision in first and 0 < decided < len(graded) else "")


class Answers:
    """One run folder's answer records by scope (by model and scope in a run of several
    models), each stored once in the page's book."""

    def __init__(self, page: Page, run: Path, *, by_model: bool = False) -> None:
        self.page, self.run, self.by_model = page, run, by_model
        self.by_scope: dict[str, list[ReadAnswer]] = {}
        self._of_model: dict[tuple[str, str], list[ReadAnswer]] = {}
        self._ids: dict[int, int] = {}
        for record in read_answers(RunStore(run).records()):
            self.by_scope.setdefault(record["scope"], []).append(record)
            self._of_model.setdefault((record["model"], record["scope"]), []).append(record)

    def of(self, scope: ScopeResult) -> list[ReadAnswer]:
        """The answer records of one scope's verdict (of its model, in a run of several)."""
        if self.by_model and scope.model is not None:
            return self._of_model.get((scope.model, scope.scope), [])
        return self.by_scope.get(scope.scope, [])

    def ids(self, records: Sequence[ReadAnswer]) -> list[int]:
        """The book indices of records (stored on first use)."""
        return [self.page.book.record(f"{self.run}:{r['_line']}", answer_view(r))
                for r in records]

    def link(self, text: str, title: str, records: Sequence[ReadAnswer]) -> Html:
        """`text` linked to these records."""
        return self.page.book.link(text, title, self.ids(records))


def scope_row(scope: ScopeResult, answers: Answers) -> list[Content]:
    """One scope: verdict, n, mean [L, U], ridiculous [L, U], per task, rephrase check."""
    records = answers.of(scope)
    named = scope.scope if scope.model is None else f"{scope.model} on {scope.scope}"
    asked = [r for r in records if r["kind"] == "answer"]
    v = scope.verdict
    if v is None:
        return [scope.scope, badge(None), answers.link(str(scope.asked), "answers", asked),
                join(el("br"), unscored_lines(scope)[:-1]), "", "", ""]
    tasks = join(el("br"), (
        answers.link(f"{family} {f.mean:.2f} ± {f.se:.2f} (n={f.n})",
                     f"{named}: {family}", [r for r in asked if r["family"] == family])
        for family, f in scope.by_family.items()))
    rephrased = [r for r in records if r["kind"] == "rephrase"]
    check = "" if scope.rephrase is None else answers.link(
        f"{scope.rephrase.disagreements} of {scope.rephrase.n} changed", "rephrased answers",
        rephrased)
    return [scope.scope,
            badge(v.decision, answers.link(v.decision.words,
                                           rests_on_title(named, asked, v.decision),
                                           rests_on(asked, v.decision))),
            answers.link(str(v.n), f"{named}: every answer", asked),
            bounds(v), f"{v.ridiculous_rate:.3f} [{v.ridiculous_lower:.4f}, "
                       f"{v.ridiculous_upper:.4f}]", tasks, check]


HEAD = ["scope", "verdict", "n", "mean score [L, U]", "ridiculous [L, U]", "score per task",
        "rephrased"]


def section(run: Path, page: Page) -> None:
    """A certify run: the verdict table (a model column first for a run of several models)
    and each verdict in words."""
    result = load_result(CertifyResult, run)
    several = len(result.model_names) > 1
    answers = Answers(page, run, by_model=several)
    c = result.criterion

    def named(s: ScopeResult) -> str:
        return f"{result.model_of(s)} on {s.scope}" if several else s.scope

    why = concat((el("h3", named(s)), el("pre", "\n".join(explain(s.verdict)), class_="why"))
                 for s in result.scopes if s.verdict is not None)
    rows = [([result.model_of(s)] if several else []) + scope_row(s, answers)
            for s in result.scopes]
    page.section(f"Certification: {result.model}",
                 el("p", rule_sentence(c), class_="legend")
                 + table((["model"] if several else []) + HEAD, rows) + why,
                 note=f"PG {c.pg:g}, RID {c.rid:.3g}, δ {c.delta:g}; run {run.name}; "
                      f"{result.seconds} s")


def compare(runs: Sequence[Path], page: Page) -> None:
    """Several certify runs: one row per scope, one column per model of each run."""
    results = [load_result(CertifyResult, run) for run in runs]
    columns = [(r, m) for r in results for m in r.model_names]
    names = [m for _, m in columns]
    labels = [m if names.count(m) == 1 else f"{m} ({r.run_dir.name})" for r, m in columns]
    scopes = list(dict.fromkeys(s.scope for r in results for s in r.scopes))
    rows = []
    for scope in scopes:
        row: list[Content] = [scope]
        for result, model in columns:
            found = next((s for s in result.scopes if s.scope == scope and (
                len(result.model_names) == 1 or result.model_of(s) == model)), None)
            v = found.verdict if found else None
            row.append("—" if found is None else
                       concat(badge(v.decision if v else None),
                              f" {bounds(v) if v else ''} n={num(v.n if v else found.asked, 0)}"))
        rows.append(row)
    page.section("Certification side by side", table(["scope", *labels], rows),
                 note="verdict, mean score [L, U] and n of each run")
