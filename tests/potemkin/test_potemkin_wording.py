"""The Potemkin lens's wording (issue 30, item 7): an incoherence without a number says why and
opens the pairs it rests on; `annotate import` on an audit's definitions folder prints the
rates the audit shows; two runs side by side when one is not graded yet; no answer panel says
"graded by ungraded"."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from potemkin.test_potemkin_api import label_all

import verstehen as vs
from verstehen.auditing.example import oracle
from verstehen.auditing.summary import summarize_audit
from verstehen.errors import CallFailed
from verstehen.methods.potemkin.example import answerer
from verstehen.methods.potemkin.html import incoherence_link
from verstehen.methods.potemkin.results import Incoherence
from verstehen.methods.potemkin.text import incoherence_words
from verstehen.report.html import Page
from verstehen.testing.scripted import ScriptedModel
from verstehen.viewer.page import build_page

from conftest import Cli, cli_error
from pages import book, book_in

ZERO_SUM = "game-theory/zero-sum"
CONCEPT = "game-theory/strict-dominance"
GAME = "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]"  # a zero-sum game


def where(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def records(run: Path) -> list[dict]:
    """The records of a run folder."""
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]


def pair(mismatch: bool | None, error: str | None = None) -> dict:
    """A pair record as `potemkin incoherence` writes it (only the fields the words read)."""
    return {"kind": "pair", "concept": ZERO_SUM, "domain": "game-theory", "want": True,
            "index": 0, "generate_prompt": "Generate one example", "example": GAME,
            "classify_prompt": "Is it?", "classify_text": None if error else "Perhaps.",
            "said": None if mismatch is None else not mismatch, "mismatch": mismatch,
            "is_instance": None, "check_reason": None, "error": error}


def test_incoherence_words_say_why_there_is_no_number() -> None:
    """No number: the words count what happened to the pairs; with one, the rate as the audit
    and the report show it (2 x 1/2 = 1.00, SE 2 x sqrt(1/2 x 1/2 / 2) = 0.71)."""
    unread = Incoherence(0, 2, None, None)
    assert incoherence_words(unread, [pair(None), pair(None)]) == (
        "— (n=0): both of the model's self-classifications were unreadable (no yes or no)")
    assert incoherence_words(Incoherence(0, 1, None, None), [pair(None)]) == (
        "— (n=0): the model's self-classification was unreadable (no yes or no)")
    assert incoherence_words(None, [pair(None, "500"), pair(None, "500")]) == (
        "— (n=0): the calls failed for both of its examples")
    assert incoherence_words(Incoherence(0, 1, None, None), [pair(None), pair(None, "500")]) \
        == "— (n=0): 1 self-classification unreadable (no yes or no), the calls failed for " \
           "1 example"
    assert incoherence_words(None, []) == "— (n=0): no example was made"
    assert incoherence_words(unread) == (  # only the counts at hand: still the reason
        "— (n=0): both of the model's self-classifications were unreadable (no yes or no)")
    assert incoherence_words(Incoherence(2, 0, 1.0, 2 * math.sqrt(0.25 / 2)),
                             [pair(True), pair(False)]) == "1.00 ± 0.71 (n=2)"
    assert incoherence_words(Incoherence(2, 1, 1.0, 2 * math.sqrt(0.25 / 2))) == (
        "1.00 ± 0.71 (n=2), 1 self-classification unreadable")


def test_incoherence_link_opens_the_unreadable_pairs() -> None:
    """What the audit's cell shows: the reason, a link opening both replies."""
    page = Page("t")
    cell = incoherence_link(page, [("r:0", pair(None)), ("r:1", pair(None))],
                            Incoherence(0, 2, None, None), "Zero-Sum: the model's own examples")
    assert "both of the model&#x27;s self-classifications were unreadable" in cell
    assert 'class="rec"' in cell
    data = book(page)
    (group,) = data["groups"]
    assert len(group["records"]) == 2
    assert all("unreadable" in data["records"][i]["grade"] for i in group["records"])
    assert all("Perhaps." in data["records"][i]["answer"] for i in group["records"])


@pytest.fixture
def unreadable_run(tmp_path: Path):
    """An incoherence run whose two self-classifications (one instance, one non-instance of
    one concept) both say neither yes nor no."""
    model = ScriptedModel(reply=lambda p: "Perhaps." if p.startswith("Is the following")
                          else GAME)
    return vs.potemkin_incoherence(model, concepts=ZERO_SUM, per_concept=1, **where(tmp_path))


def test_an_incoherence_run_with_every_classification_unreadable_says_so(
        unreadable_run, capsys: pytest.CaptureFixture[str]) -> None:
    """Terminal and report: why there is no number, and the report's cell opens the replies."""
    assert unreadable_run.overall.n == 0 and unreadable_run.overall.unparsed == 2
    why = "both of the model's self-classifications were unreadable (no yes or no)"
    print(unreadable_run.text())
    out = capsys.readouterr().out
    assert f"— (n=0): {why}" in out
    text = build_page([unreadable_run.run_dir]).html()
    assert why.replace("'", "&#x27;") in text
    data = book_in(text)
    opened = [g for g in data["groups"] if g["title"] == "every example"]
    assert len(opened) == 1 and len(opened[0]["records"]) == 2
    assert all("Perhaps." in data["records"][i]["answer"] for i in opened[0]["records"])


def test_failed_calls_are_named_as_failed_not_unreadable(tmp_path: Path) -> None:
    """Every classification call fails: the words say the calls failed; each panel too."""
    model = ScriptedModel(script=lambda p, attempt: CallFailed("400 bad request")
                          if p.startswith("Is the following") else None,
                          reply=lambda p: GAME)
    result = vs.potemkin_incoherence(model, concepts=ZERO_SUM, per_concept=1,
                                     **where(tmp_path))
    assert result.failed_calls == 2
    text = build_page([result.run_dir]).html()
    assert "the calls failed for both of its examples" in text
    data = book_in(text)
    assert [r["grade"] for r in data["records"]] == ["not classified: the call failed"] * 2


def test_annotate_import_on_an_audit_prints_the_audits_rates(tmp_path: Path, cli: Cli) -> None:
    """The audit's definitions folder has no use answers of its own: after the import, the
    rates of the audit's certification answers, worked out here from its records."""
    model = ScriptedModel("scripted/oracle", reply=oracle((ZERO_SUM,)))
    audit = vs.audit(model, subjects=ZERO_SUM, examples=0, **where(tmp_path))
    folder = audit.runs[0].potemkin
    labels = vs.annotate_export(folder)
    label_all(labels, "yes")
    done = cli(["annotate", "import", str(folder), str(labels)])
    assert done.returncode == 0, done.stderr
    assert "no graded use answers yet" not in done.stdout
    assert "graded by code" in done.stdout and str(audit.run_dir) in done.stdout
    answers = [r for r in records(audit.runs[0].certify) if r["kind"] == "answer"]
    line = summarize_audit(audit.run_dir, write=False).targets[0]
    for task, scale in (("classify", 2), ("generate", 1), ("edit", 1)):
        mine = [r for r in answers if r["family"] == task]
        unread = sum(r["outcome"] in ("unparsed", "truncated") for r in mine)
        counted = [r for r in mine if task != "classify" or r["outcome"] not in
                   ("unparsed", "truncated")]
        p = sum(r["score"] == 1.0 for r in counted) / len(counted)
        text = (f"{scale * (1 - p):.2f} ({scale * math.sqrt(p * (1 - p) / len(counted)):.2f})"
                f" n={len(counted)}")
        assert text in done.stdout, task
        assert line.potemkin[task].n == len(counted)  # the audit's table: the same answers
        if unread and task != "classify":
            assert f"{text}, {unread} unreadable (as wrong)" in done.stdout
    # `potemkin score` of the folder: nothing of its own to score, and it says where to look
    cli_error(cli, ["potemkin", "score", str(folder)], "asked only for definitions",
              f"verstehen report {audit.run_dir}")


@pytest.fixture
def graded_and_not(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs of one concept, one item a task: the first's definition judged right, the
    second's not graded (no judge, no label)."""
    judge = ScriptedModel("scripted/judge", reply=lambda p: "ANSWER: Yes")
    graded = vs.potemkin_run(answerer(), concepts=CONCEPT, items_per_concept=1, judge=judge,
                         **where(tmp_path))
    waiting = vs.potemkin_run(answerer(), concepts=CONCEPT, items_per_concept=2,
                          **where(tmp_path))
    assert graded.scores is not None and waiting.scores is None
    return graded.run_dir, waiting.run_dir


def test_two_runs_side_by_side_when_one_is_not_graded(graded_and_not, tmp_path: Path,
                                                      cli: Cli) -> None:
    """`verstehen report RUN1 RUN2` works; the ungraded run's column says so and what to do;
    the graded one's rates: the answerer gets classify and generate right and cannot edit, so
    classify 2 x (1 - 1/1) = 0, generate 0, edit 1 - 0/1 = 1 (an unreadable edit is wrong),
    each with n 1 and SE 0."""
    graded, waiting = graded_and_not
    out = tmp_path / "both.html"
    done = cli(["report", str(graded), str(waiting), "-o", str(out)])
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    side = text[text.index("<h2>Potemkins side by side"):text.index("<h2>Potemkins: ")]
    assert f"scripted/answerer ({graded.name})" in side
    assert f"scripted/answerer ({waiting.name})" in side
    # 2 items of each of the 3 use tasks wait for the ungraded definition
    assert "not graded yet (6 answers wait for the definition&#x27;s grade)" in side
    assert f"verstehen annotate export {waiting}" in side
    for shown in ("0.00 ± 0.00 (n=1)", "1.00 ± 0.00 (n=1), 1 unreadable (as wrong)"):
        assert shown in side
    assert "1 right" in side and "1 not graded yet" in side  # the definitions row
    data = book_in(text)
    grades = [r["grade"] for r in data["records"]]
    assert not any("graded by ungraded" in g or "not graded (" in g for g in grades)
    assert "not graded yet: no judge was given and no label imported" in grades


def test_a_self_judgment_that_could_not_be_read_says_so(tmp_path: Path) -> None:
    """The self-judge panel: an unreadable judgment is neither "not graded" nor a grade."""
    mcq = tmp_path / "dev.jsonl"
    mcq.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": x, "text": f"choice {x}"} for x in "ABCDE"]}, "answerKey": "A"}) + "\n")

    def reply(prompt: str) -> str:
        if prompt.startswith("A concept is"):
            return "ANSWER: Yes\nCONCEPT: stems"
        return "1. Related?" if "other questions" in prompt else "A"

    run = vs.potemkin_selfjudge(ScriptedModel(reply=reply), f"mcq:{mcq}", questions=1,
                                subquestions=1, **where(tmp_path))
    assert run.judgments == 0 and run.related_questions == 1
    (panel,) = book(build_page([run.run_dir]))["records"]
    assert panel["grade"] == ("its judgment of the answer could not be read, its judgment "
                              "of the altered one could not be read")


def test_the_audit_table_says_when_no_self_classification_was_readable() -> None:
    """The terminal row of an audit target: "— (2 unreadable)" where both of the model's
    self-classifications gave no yes or no; a plain "—" where no example was made; the rate
    where there is one."""
    from verstehen.auditing.results import HEADER, TargetAudit, target_row

    def row(inc: Incoherence | None) -> str:
        line = TargetAudit(model="m", key="zero-sum", name="Zero-Sum Game",
                           subject="game-theory", scope="game-theory/zero-sum", verdict=None,
                           asked=0, by_task={}, keystone=None, potemkin={}, incoherence=inc,
                           checker_wrong=None, evidence=())
        return target_row(line)[HEADER.index("incoherence")]

    assert row(Incoherence(0, 2, None, None)) == "— (2 unreadable)"
    assert row(None) == "—"
    # 2 classified, 1 contradicting: 2 x 1/2 = 1.00, SE 2 x sqrt(1/2 x 1/2 / 2) = 0.71
    assert row(Incoherence(2, 0, 1.0, 2 * math.sqrt(0.25 / 2))) == "1.00 ± 0.71 (n=2)"
