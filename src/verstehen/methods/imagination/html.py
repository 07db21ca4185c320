"""Shared imagination in the HTML report: what a question model kept and dropped per question
type, and the QM x AM matrix of κ and α with every number linked to the records behind it;
several answer runs pooled into one matrix."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.methods.imagination.generate import question_id
from verstehen.methods.imagination.records import (
    AnswerRecord,
    FictionRecord,
    ImaginationRecord,
    QuestionRecord,
    read_records,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.runs import ANSWER, counted_once_by, read_runs, run_answers
from verstehen.methods.imagination.stats import MatrixRow, pair_matrix
from verstehen.methods.imagination.text import QTYPE_NAMES
from verstehen.report.html import Page, RecordView, figure, rate, table
from verstehen.report.markup import Content, Html, concat, el, join
from verstehen.results import load_result
from verstehen.text.tables import plural

Keep = Callable[[ImaginationRecord], bool]  # which records a link shows
ANSWERED = ("correct", "wrong")
DECLINED = ("refused", "choice_e")


def _failed(error: object) -> str:
    return f"(the call failed: {error})"


def question_view(r: QuestionRecord) -> RecordView:
    """A generated question: its type and topic (and context paragraph), the raw reply, its
    status, and why it was dropped or what was parsed from it."""
    slot = r.get("slot", r["index"])
    title = f"{r['qtype']} · {r['topic']} · slot {slot}"
    if r.get("try", 1) > 1:
        title += f" · try {r['try']}"
    if r.get("position") is not None:
        title += f" · position {r['position']}"
    asked = f"{QTYPE_NAMES.get(r['qtype'], r['qtype'])} on {r['topic']} ({r['content']})"
    if context := r.get("context"):
        concept = context.get("concept") or ""
        asked += f"\n\ncontext{f' ({concept})' if concept else ''}:\n" \
                 f"{context.get('paragraph') or ''}"
    if r["status"] == "ok":
        answer = r["answer"]
        why = "\n".join([f"parsed: {r['stem']}",
                         *(f"{'ABCD'[i]}. {c}" for i, c in enumerate(r["choices"] or [])),
                         f"designated answer: {'ABCD'[answer] if answer is not None else '?'}"])
    else:
        why = str(r.get("reason") or "")
    reply = r["reply"] if r["reply"] is not None else _failed(r.get("reason"))
    return RecordView(title, asked, reply, r["status"], why)


def answer_view(r: AnswerRecord) -> RecordView:
    """An answer model's answer: the prompt it saw, its reply, the outcome and why."""
    where = f" · position {r['position']}" if r.get("position") is not None else ""
    title = f"{r['qtype']} · {r['topic']}{where} · {r['qm']} → {r['am']}"
    if r.get("error"):
        reply = _failed(r["error"])
    elif (replied := r.get("reply")) is not None:
        reply = replied
    elif r.get("logprobs") is not None:
        reply = "log-probabilities " + ", ".join(f"{x:.2f}" for x in r["logprobs"])
    else:
        reply = ""
    grade = r["outcome"] + (f", score {r['score']:g}" if r.get("score") is not None else "")
    why = [f"designated answer {r['correct_letter']}",
           f"chose {r['chosen']}" if r.get("chosen") else "chose nothing",
           f"method {r.get('method', '?')}"]
    if r.get("judge_reply"):
        why.append(f"judge: {r['judge_reply']}")
    return RecordView(title, r.get("prompt") or "", reply, grade, "; ".join(why))


def fiction_view(r: FictionRecord) -> RecordView:
    """A fictionality question: is the context paragraph about a real concept?"""
    replied = r.get("reply")
    reply = replied if replied is not None else _failed(r.get("error"))
    return RecordView(f"fictionality · {r['topic']} · {r['qm']} → {r['am']}",
                      r.get("prompt") or "", reply, r["verdict"],
                      "fictional: the AM saw through the made-up concept"
                      if r["verdict"] == "fictional" else "")


def view(r: ImaginationRecord) -> RecordView:
    """A record of any kind as the page shows it."""
    if r["kind"] == "question":
        return question_view(r)
    return answer_view(r) if r["kind"] == "answer" else fiction_view(r)


class Records:
    """Records of imagination run folders, each with its book key (run folder and line), and
    each stored once in the page's book when linked."""

    def __init__(self, page: Page, records: Sequence[tuple[str, ImaginationRecord]]) -> None:
        self.page, self.records = page, list(records)

    @classmethod
    def of_run(cls, page: Page, run: Path) -> Records:
        """Every record of one run folder, keyed by its line."""
        return cls(page, [(f"{run}:{line}", r)
                          for line, r in enumerate(read_records(RunStore(run)))])

    def select(self, keep: Keep) -> list[tuple[str, ImaginationRecord]]:
        """The records `keep` selects, with their keys, in file order."""
        return [(key, r) for key, r in self.records if keep(r)]

    def link(self, text: str, title: str, keep: Keep,
             among: Collection[str] | None = None) -> Html:
        """`text` linked to the records `keep` selects (of those whose keys are `among`, when
        given)."""
        ids = [self.page.book.record(key, view(r)) for key, r in self.select(keep)
               if among is None or key in among]
        return self.page.book.link(text, title, ids)


def _questions(qtype: str, status: str | None = None, reason: str | None = None) -> Keep:
    return lambda r: (r["kind"] == "question" and r["qtype"] == qtype
                      and status in (None, r["status"]) and reason in (None, r["reason"]))


def _repeats(records: Records) -> set[str]:
    """The book keys of the kept questions that repeat one kept before them in the run."""
    seen: set[str] = set()
    out: set[str] = set()
    for key, r in records.select(lambda r: r["kind"] == "question" and r["status"] == "ok"):
        if r["kind"] != "question":
            continue
        qid = question_id(r)
        if qid in seen:
            out.add(key)
        seen.add(qid)
    return out


def generate_section(run: Path, page: Page) -> None:
    """An `imagine generate` run: per question type, what was asked, kept (and repeated),
    dropped (and why) and which calls failed, each count linked to its question records."""
    result = load_result(ImagineGenerateResult, run)
    records = Records.of_run(page, run)
    link, repeats = records.link, _repeats(records)
    rows: list[list[Content]] = []
    for q, t in result.by_type.items():
        reasons = join(el("br"), (link(f"{reason} ({n})", f"{q}: {reason}",
                                       _questions(q, "dropped", reason))
                                  for reason, n in t.reasons.items())) or "—"
        rows.append([f"{q} ({QTYPE_NAMES.get(q, q)})", f"{t.filled} of {t.slots}",
                     link(str(t.asked), f"{q}: every reply", _questions(q)),
                     link(str(t.kept), f"{q}: kept questions", _questions(q, "ok")),
                     link(str(t.repeated), f"{q}: repeats of a kept question",
                          _questions(q, "ok"), among=repeats),
                     link(str(t.dropped), f"{q}: dropped replies", _questions(q, "dropped")),
                     reasons, link(str(t.failed), f"{q}: failed calls", _questions(q, "error"))])
    body = table(["type", "slots filled", "replies", "kept", "repeats", "dropped",
                  "why dropped (top 6)", "failed calls"], rows)
    page.section(f"Shared imagination: questions by {result.qm}", body,
                 note=f"{plural(result.kept, 'question')} kept; a slot is filled when a try "
                      "gave a usable question; a repeat is a kept question written before in "
                      f"the run (answered once); failed calls count slots; run {run.name}; "
                      f"{result.seconds} s")


def _cell(row: MatrixRow) -> Keep:
    return lambda r: (r["kind"] == "answer" and r["content"] == row.content
                      and r["qtype"] == row.qtype and r["qm"] == row.qm and r["am"] == row.am)


def _with_outcome(cell: Keep, outcomes: Collection[str]) -> Keep:
    return lambda r: cell(r) and r["kind"] == "answer" and r["outcome"] in outcomes


def _answers_with(outcome: str) -> Keep:
    return lambda r: r["kind"] == "answer" and r["outcome"] == outcome


def matrix_table(matrix: Sequence[MatrixRow], records: Records) -> Html:
    """One row per (qtype, content, QM, AM): κ ± SE over answered, α ± SE over answered +
    declined, and n, each linked to that cell's answers."""
    rows: list[list[Content]] = []
    for row in matrix:
        cell = _cell(row)
        name = f"{row.qtype} ({row.content}), {row.qm} → {row.am}"
        rows.append([
            row.qtype, row.content, row.qm, row.am,
            records.link(rate(row.kappa, row.kappa_se, row.answered), f"{name}: answered",
                         _with_outcome(cell, ANSWERED)),
            records.link(rate(row.alpha, row.alpha_se, row.answered + row.declined),
                         f"{name}: answered or declined",
                         _with_outcome(cell, ANSWERED + DECLINED)),
            records.link(str(row.n), f"{name}: every answer", cell),
            str(row.unparsed)])
    return table(["qtype", "content", "QM", "AM", "κ ± SE", "α ± SE", "n",
                  "unparsed or failed"], rows)


def _fiction(qm: str, am: str, *, judged: bool) -> Keep:
    return lambda r: (r["kind"] == "fiction" and r["qm"] == qm and r["am"] == am
                      and (r["verdict"] in ("real", "fictional")) == judged)


MATRIX_NOTE = ("κ: share correct of the answered (n answered); α: share answered of the "
               "answered and declined; unparsed and failed answers count in n only")


def answer_section(run: Path, page: Page) -> None:
    """An `imagine answer` run: the matrix with κ, α and n linked to their answers, the figure,
    fictionality rates and the outcomes."""
    result = load_result(ImagineAnswerResult, run)
    records = Records.of_run(page, run)
    body = matrix_table(result.matrix, records)
    if result.matrix_png is not None:
        body += figure(run, result.matrix_png, "κ and α per question and answer model")
    if result.fiction:
        rows: list[list[Content]] = [[f.qm, f.am,
                 records.link(rate(f.rate, f.se, f.judged), f"{f.qm} → {f.am}: judged",
                              _fiction(f.qm, f.am, judged=True)),
                 records.link(str(f.unparsed), f"{f.qm} → {f.am}: unparsed or failed",
                              _fiction(f.qm, f.am, judged=False))] for f in result.fiction]
        body += concat(el("h3", "Fictionality (paper Figure 8)"),
                       table(["QM", "AM", "called fictional", "unparsed or failed"], rows))
    outcomes: list[list[Content]] = [
        [outcome, records.link(str(n), f"answers: {outcome}", _answers_with(outcome))]
        for outcome, n in sorted(result.outcomes.items())]
    body += concat(el("h3", "Outcomes"), table(["outcome", "answers"], outcomes))
    models = ", ".join(map(str, RunStore(run).info().get("config", {}).get("models", [])))
    once = result.repeated_questions
    repeats = (f"; {plural(once, 'question')} of the question runs repeated one already read "
               f"and {'was' if once == 1 else 'were'} answered once" if once else "")
    page.section(f"Shared imagination: answers by {models}", body,
                 note=f"{MATRIX_NOTE}{repeats}; failed calls: {result.failed_calls}; run "
                      f"{run.name}; {result.seconds} s")


def compare(runs: Sequence[Path], page: Page) -> None:
    """Several `imagine answer` runs pooled into one matrix (each answer to a question, by its
    content id, counted once: the last run's when runs share one)."""
    keyed = [(f"{store.path}:{line}", r) for store, _ in read_runs(runs, (ANSWER,))
             for line, r in enumerate(run_answers(store).records)]
    last: dict[Hashable, tuple[str, ImaginationRecord]] = {}
    for key, r in keyed:  # as runs.once_each: the last wins, in the place of the first
        last[counted_once_by(r)] = (key, r)
    repeats = len(keyed) - len(last)
    answers = [(key, r) for key, r in last.values() if r["kind"] == "answer"]
    page.section("Shared imagination: answer runs pooled",
                 matrix_table(pair_matrix([r for _, r in answers if r["kind"] == "answer"]),
                              Records(page, answers)),
                 note=f"{MATRIX_NOTE}; {plural(repeats, 'answer')} repeated one of "
                      "another run and "
                      f"{'counts' if repeats == 1 else 'count'} once; runs "
                      + ", ".join(r.name for r in runs))
