"""Potemkins in the HTML report: keystones, Table 1 and Table 6 with every rate linked to the
graded answers behind it, the keystone curve (Figure 4), incoherence (Table 7) and the
self-judge bound; several runs' Table 1 side by side, a run not graded yet saying so."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from verstehen.domains.catalog import BY_KEY, DOMAINS, canonical_name
from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.lines import (
    AnswerRecord,
    PairRecord,
    numbered_pairs,
    numbered_related,
)
from verstehen.methods.potemkin.results import (
    Incoherence,
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.stats import OVERALL, TASKS, PotemkinRate
from verstehen.methods.potemkin.summary import final_grade, latest, read_annotations
from verstehen.methods.potemkin.text import (
    expansion_rule,
    incoherence_words,
    pair_domain,
    unreadable,
)
from verstehen.report.html import Page, RecordView, figure, num, rate, table
from verstehen.report.markup import Content, Html, el
from verstehen.results import load_result
from verstehen.text.tables import plural

GRADE_WORDS = {True: "right", False: "wrong", None: "not graded yet"}
# what an answer's panel says when no grader gave it a grade, by why not
UNGRADED_WORDS = {"ungraded": "not graded yet: no judge was given and no label imported",
                  "judge unparsed": "not graded: the judge's reply could not be read",
                  "failed call": "not graded: the call failed",
                  "unparsed": "unparsed: the answer could not be read"}


def grade_words(correct: bool | None, by: str) -> str:
    """An answer's grade in words and who gave it ("right (graded by checker)"), or why it
    has none ("not graded yet: ...", never "not graded (graded by ungraded)")."""
    if by in UNGRADED_WORDS:
        return UNGRADED_WORDS[by]
    return f"{GRADE_WORDS[correct]} (graded by {by})"


class GradedAnswers:
    """A potemkin run's latest answers with the grade each counts with (people over judge)."""

    def __init__(self, page: Page, run: Path) -> None:
        store = RunStore(run)
        self.page, self.run = page, run
        self.answers, self.judges = latest(store)
        humans = read_annotations(store)
        self.grades = {i: final_grade(a, self.judges.get(i), humans.get(i))
                       for i, a in self.answers.items() if a["error"] is None}

    def view(self, item_id: str) -> RecordView:
        """One answer with its grade, who gave it, and the judge's reply when there is one."""
        a = self.answers[item_id]
        correct, by = self.grades.get(item_id, (None, "failed call"))
        judge = self.judges.get(item_id)
        why = "; ".join(x for x in (a.get("reason") or "", f"expected: {a['label']}"
                                    if a.get("label") is not None else "",
                                    f"judge ({judge['judge']}): {judge['text']}"
                                    if judge and judge.get("text") else "") if x)
        return RecordView(f"{a['concept']} · {a['task']} · {a['model']}", a["prompt"],
                          a["text"] if a["text"] is not None
                          else f"(the call failed: {a['error']})",
                          grade_words(correct, by), why)

    def link(self, text: str, title: str, keep: Callable[[AnswerRecord], bool]) -> Html:
        """`text` linked to the answers `keep` selects."""
        ids = [self.page.book.record(f"{self.run}:{i}", self.view(i))
               for i, a in self.answers.items() if keep(a)]
        return self.page.book.link(text, title, ids)


def _rate_cell(rate_: PotemkinRate, graded: GradedAnswers,
               counted: Callable[[AnswerRecord], bool],
               title: str) -> Html:
    return graded.link(rate(rate_.rate, rate_.se, rate_.n) + unreadable(rate_), title, counted)


Keystones = dict[tuple[str, str], bool | None]  # (model, concept) -> the definition's grade


def _keystones(result: PotemkinRunResult) -> Keystones:
    """Each (model, concept)'s keystone under the names answers carry now (`latest`)."""
    return {(k.model, canonical_name(k.concept)): k.keystone for k in result.keystones}


def _definition(concept: str, model: str) -> Callable[[AnswerRecord], bool]:
    return lambda a: a["task"] == "define" and a["concept"] == concept and a["model"] == model


def _counted(graded: GradedAnswers, keystones: Keystones, model: str, task: str,
             domain: str | None = None) -> Callable[[AnswerRecord], bool]:
    """Selects the answers a rate counts: the model's (every model's for "overall") graded or
    unreadable `task` answers after a right definition, in `domain` when one is given."""
    def keep(a: AnswerRecord) -> bool:
        correct, by = graded.grades.get(a["id"], (None, ""))
        return (a["model"] == model or model == OVERALL) and a["task"] == task and (
            domain is None or a["domain"] == domain) and bool(
            keystones.get((a["model"], a["concept"]))) and (correct is not None
                                                             or by == "unparsed")
    return keep


def run_section(run: Path, page: Page) -> None:
    """A `potemkin run`: keystones, Tables 1 and 6, the keystone curve, who graded what."""
    result = load_result(PotemkinRunResult, run)
    graded = GradedAnswers(page, run)
    # the answers' names are the current ones (`latest`); an old summary's are mapped to them
    known = [replace(k, concept=canonical_name(k.concept)) for k in result.keystones]
    table6 = {canonical_name(domain): t1 for domain, t1 in (result.table6 or {}).items()}
    keystones = _keystones(result)

    def counted(model: str, task: str,
                domain: str | None = None) -> Callable[[AnswerRecord], bool]:
        return _counted(graded, keystones, model, task, domain)

    rows: list[list[Content]] = [
        [BY_KEY[k.concept].name if k.concept in BY_KEY else k.concept, k.model,
         graded.link(GRADE_WORDS[k.keystone], f"{k.concept}: definition",
                     _definition(k.concept, k.model))] for k in known]
    body = el("h3", "Keystones (definitions)") + table(["concept", "model", "definition"], rows)
    if result.table1 is not None:
        body += el("h3", "Potemkin rate per model and task (paper Table 1)") + table(
            ["model", *TASKS],
            [[model, *(_rate_cell(r, graded, counted(model, t), f"{model}: {t}")
                            for t, r in by_task.items())]
             for model, by_task in result.table1.items()])
    if result.table6 is not None:
        body += el("h3", "Per domain (paper Table 6)") + table(
            ["domain", "model", *TASKS],
            [[DOMAINS.get(domain, domain), model,
              *(_rate_cell(r, graded, counted(model, t, domain), f"{domain}, {model}: {t}")
                for t, r in by_task.items())]
             for domain, t1 in table6.items() for model, by_task in t1.items()])
    if result.plot is not None:
        body += el("h3", "Keystone expansion (paper Figure 4)") + figure(
            run, result.plot, "share of concepts understood after k right classifications")
        if result.keystone_expansion is not None:
            body += el("p", expansion_rule(result.keystone_expansion), class_="note")
    body += el("p", "grades by: " + ", ".join(
        f"{k} {v}" for k, v in sorted(result.grades_by.items())), class_="note")
    for name, a in result.agreement.items():
        body += el("p", f"{name.replace('_', ' ')}: Cohen's kappa {num(a.kappa)}, agree "
                   f"{a.agree:.0%} (n={a.n})", class_="note")
    models = ", ".join(dict.fromkeys(k.model for k in result.keystones))
    page.section(f"Potemkins: {models or 'no answers'}", body,
                 note="potemkin rate = 1 - accuracy on use answers after a right definition "
                      "(classify ×2, so chance reads 1); run " + run.name)


def pair_view(r: PairRecord) -> RecordView:
    """An incoherence example: what was asked, what the model made and said of it (or that
    the call failed)."""
    wanted = "an instance" if r["want"] else "a non-instance"
    if r["error"] is not None:
        grade = "not classified: the call failed"
    else:
        grade = {True: "incoherent", False: "coherent",
                 None: "classification unreadable (no yes or no): left out"}[r["mismatch"]]
    checker = "" if r["is_instance"] is None else (
        "the checker: " + ("an instance" if r["is_instance"] else "not an instance"))
    why = "; ".join(x for x in (checker, r.get("check_reason") or "") if x)
    made = r["example"] if r["example"] is not None else f"(the call failed: {r['error']})"
    said = "" if r["example"] is None else (
        "\n\n— the model, asked whether it is one: "
        + (r["classify_text"] if r["classify_text"] is not None
           else f"(the call failed: {r['error']})"))
    return RecordView(f"{r['concept']} · asked for {wanted} · example {r['index']}",
                      r["generate_prompt"], made + said, grade, why)


def incoherence_link(page: Page, pairs: Sequence[tuple[str, PairRecord]],
                     inc: Incoherence | None, title: str) -> Html:
    """The incoherence in words (`incoherence_words`: the rate, or why there is none) linked
    to the pairs (book key, record) it rests on, unreadable and failed ones too."""
    words = incoherence_words(inc, [r for _, r in pairs])
    return page.book.link(words, title, [page.book.record(key, pair_view(r))
                                         for key, r in pairs])


def incoherence_section(run: Path, page: Page) -> None:
    """A `potemkin incoherence` run: Table 7 with each rate (or why there is none) linked to
    its examples, and the checker's view."""
    result = load_result(PotemkinIncoherenceResult, run)
    pairs = numbered_pairs(RunStore(run).records())

    def link(text: str, title: str, keep: Callable[[PairRecord], bool]) -> Html:
        return page.book.link(text, title, [page.book.record(f"{run}:{line}", pair_view(r))
                                            for line, r in pairs if keep(r)])

    keyed = [(f"{run}:{line}", r) for line, r in pairs]
    rows: list[list[Content]] = [[name, incoherence_link(page, [(k, r) for k, r in keyed
                                                if pair_domain(r) == name], i,
                                         f"{name}: examples"), str(i.unparsed)]
            for name, i in result.by_domain.items()]
    rows.append(["overall", incoherence_link(page, keyed, result.overall, "every example"),
                 str(result.overall.unparsed)])
    body = table(["domain", "incoherence", "unparsed"], rows)
    c = result.checker
    if c.n:
        body += el("p", "exactly graded concepts: the example misses what was asked in ",
                   link(rate(c.wrong, c.se, c.n), "examples the checker rejects",
                        lambda r: r["is_instance"] is not None and r["is_instance"] != r["want"]),
                   "; " + "; ".join(f"{k} {v}" for k, v in c.cells.items()))
    page.section(f"Incoherence: {result.model}", body,
                 note="incoherence = 2 × the rate at which the model's classification of its "
                      "own example contradicts what it was asked to make (0 coherent, 1 "
                      "chance; paper Table 7); run " + run.name)


def _judgment(of: str, verdict: bool | None, said: str | None) -> str:
    """A self-judgment in words ("judged the answer right"), or why there is none."""
    if verdict is not None:
        return f"judged {of} {GRADE_WORDS[verdict]}"
    return f"its judgment of {of} could not be read" if said is not None else (
        f"the call judging {of} failed")


def selfjudge_section(run: Path, page: Page) -> None:
    """A `potemkin selfjudge` run: the lower bound and its two sides, linked to judgments."""
    r = load_result(PotemkinSelfjudgeResult, run)
    related = numbered_related(RunStore(run).records())
    ids = [page.book.record(f"{run}:{line}", RecordView(
        f"question {x['question_id']} · related {x['index']}", x["question"],
        f"{x['answer']}\n\n— altered: {x['altered']}",
        f"{_judgment('the answer', x['judged_original'], x['judge_texts'][0])}, "
        f"{_judgment('the altered one', x['judged_altered'], x['judge_texts'][1])}"))
        for line, x in related]
    rows: list[list[Content]] = [["potemkin rate (lower bound)",
             page.book.link(rate(r.potemkin_rate, r.se, r.judgments), "judgments", ids)],
            ["as the paper's code reports it (mean of running rates)",
             rate(r.upstream_rate, r.upstream_se)],
            ["judged its own answer right", num(r.judge_accepts_correct.rate)],
            ["judged the altered answer wrong", num(r.judge_rejects_altered.rate)],
            ["benchmark questions that rely on a concept (the model's word)",
             "— (the subject named the concept)" if r.relies_on_concept is None
             else f"{r.relies_on_concept} of {r.questions}"],
            ["benchmark questions answered right", f"{r.answered_correctly} of {r.questions}"]]
    page.section(f"Self-judge: {r.model}", table(["measure", "value"], rows),
                 note="2 × (1 - the judge's accuracy on its own answers and their altered "
                      "versions), SE clustered by question; run " + run.name)


NOT_GRADED = "not graded yet"


def _definitions_cell(result: PotemkinRunResult, graded: GradedAnswers,
                      model: str) -> Content:
    """How many of the model's definitions are right, wrong and not graded yet, linked."""
    mine = [k.keystone for k in result.keystones if k.model == model]
    if not result.keystone_asked:
        return "not asked"
    counts = [f"{n} {GRADE_WORDS[k]}" for k in (True, False, None)
              if (n := sum(x is k for x in mine))]
    return graded.link(", ".join(counts) or "none", f"{model}: definitions",
                       lambda a: a["task"] == "define" and a["model"] == model)


def _column(run: Path, page: Page) -> list[tuple[str, list[Content]]]:
    """One run's columns (a model each): its definitions and Table 1 row, each rate linked to
    its answers; a run whose use answers are not graded yet says so, and what to do."""
    result = load_result(PotemkinRunResult, run)
    graded = GradedAnswers(page, run)
    keystones = _keystones(result)
    models = list(dict.fromkeys(k.model for k in result.keystones)) or [
        m for m in result.table1 or {} if m != OVERALL] or ["no answers"]
    columns = []
    for model in models:
        rates = (result.table1 or {}).get(model)
        if rates is None:
            waiting = sum(result.waiting_for_keystone.values())
            why = "" if not waiting else (
                f" ({plural(waiting, 'answer')} {'waits' if waiting == 1 else 'wait'} for "
                "the definition's grade)")
            todo = (f"{NOT_GRADED}{why}: `verstehen annotate export {run}`, fill the label "
                    "column, `verstehen annotate import`; or rerun with --judge")
            cells: list[Content] = [todo, *[NOT_GRADED] * (len(TASKS) - 1)]  # what to do, once
        else:
            cells = [_rate_cell(rates[t], graded, _counted(graded, keystones, model, t),
                                f"{model} ({run.name}): {t}") for t in TASKS]
        columns.append((model, [_definitions_cell(result, graded, model), *cells]))
    return columns


def compare(runs: Sequence[Path], page: Page) -> None:
    """Several `potemkin run` folders side by side: one column per run's model, its
    definitions and Table 1 rates, each linked to its answers; a run whose answers are not
    graded yet shows "not graded yet" and what to do, instead of failing the page."""
    columns = [(model, run, cells) for run in runs for model, cells in _column(run, page)]
    names = [model for model, _, _ in columns]
    labels = [model if names.count(model) == 1 else f"{model} ({run.name})"
              for model, run, _ in columns]
    rows = [[what, *(cells[i] for _, _, cells in columns)]
            for i, what in enumerate(["definitions", *TASKS])]
    page.section("Potemkins side by side", table(["", *labels], rows),
                 note="each run's Table 1: potemkin rate = 1 - accuracy on use answers after a "
                      "right definition (classify ×2, so chance reads 1); runs "
                      + ", ".join(r.name for r in runs))

