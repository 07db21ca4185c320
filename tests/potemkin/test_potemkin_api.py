"""Potemkin understanding from Python: `potemkin_run()`, `potemkin_incoherence()`,
`potemkin_selfjudge()`, `potemkin_score()` and the label round trip, with their `_async` twins.

The scripted-model tests check each typed result against the run folder it wrote, and that a
run made from Python is one `verstehen annotate` works on; the slow one runs the embedded model
and checks only what holds whatever it writes.
"""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.methods.potemkin.api import (
    annotate_export,
    annotate_import,
    potemkin_incoherence,
    potemkin_incoherence_async,
    potemkin_run,
    potemkin_run_async,
    potemkin_score,
    potemkin_selfjudge,
    potemkin_selfjudge_async,
)
from verstehen.methods.potemkin.example import (
    CONCEPT,
    answerer,
    relies_then_a,
    zero_sum_maker,
)
from verstehen.methods.potemkin.records import read_records
from verstehen.methods.potemkin.results import (
    Keystone,
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.stats import PotemkinScores
from verstehen.results import from_jsonable
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli

MODEL = "local/smollm2-135m"


def folder(run_dir: Path) -> tuple[dict, dict, list[dict]]:
    """run.json, summary.json and the records of a run folder."""
    records = [json.loads(x) for x in (run_dir / "records.jsonl").read_text().splitlines()]
    return (json.loads((run_dir / "run.json").read_text()),
            json.loads((run_dir / "summary.json").read_text()), records)


def where(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def label_all(path: Path, label: str) -> None:
    """Fill the label column of an exported CSV."""
    rows = list(csv.DictReader(path.open()))
    for row in rows:
        row["label"] = label
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_potemkin_run_waits_for_people_and_annotate_works_on_it(tmp_path: Path,
                                                                cli: Cli) -> None:
    """No judge: the definition waits; `verstehen annotate` exports it, a "yes" imported from
    the command line passes the keystone, and the tables follow."""
    model = answerer()
    result = potemkin_run(model, concepts=CONCEPT, items_per_concept=1, **where(tmp_path))
    assert isinstance(result, PotemkinRunResult) and result.failed_calls == 0
    assert result.keystones == (Keystone("scripted/answerer", CONCEPT, None),)
    assert result.waiting_for_keystone == {"classify": 1, "generate": 1, "edit": 1}
    assert result.scores is None and result.usage is not None
    assert result.usage["scripted/answerer"].calls == len(model.calls) == 4
    run, summary, records = folder(result.run_dir)
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert from_jsonable(PotemkinRunResult, summary) == result
    assert run["command"] == "potemkin-run" and run["argv"] == []
    assert run["config"]["keystone_asked"] is True and run["config"]["judge"] is None
    assert run["config"]["tasks"] == ["define", "classify", "generate", "edit"]
    assert len(records) == 4

    out = tmp_path / "label.csv"
    done = cli(["annotate", "export", str(result.run_dir), "--out", str(out)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 answer to label: ")
    label_all(out, "yes")
    done = cli(["annotate", "import", str(result.run_dir), str(out), "--json"])
    assert done.returncode == 0, done.stderr
    after = json.loads(done.stdout)
    assert after["keystones"] == [{"model": "scripted/answerer", "concept": CONCEPT,
                                   "keystone": True}]
    assert after["usage"] == summary["usage"]  # the asking run's facts survive
    overall = after["table1"]["overall"]
    # the one edit could not be read: it counts as wrong (the paper drops only classify
    # answers), so the edit rate is 1 - 0/1
    assert [overall[t]["rate"] for t in ("classify", "generate", "edit")] == [0.0, 0.0, 1.0]
    assert overall["edit"]["unparsed"] == 1 and overall["edit"]["n"] == 1


def test_labels_from_python_recompute_the_result(tmp_path: Path) -> None:
    """annotate_export writes RUN/to-label.csv; importing a "no" fails the keystone."""
    result = potemkin_run(answerer(), concepts=[CONCEPT], items_per_concept=1, **where(tmp_path))
    path = annotate_export(result)
    assert path == result.run_dir / "to-label.csv"
    assert [r["task"] for r in csv.DictReader(path.open())] == ["define"]
    label_all(path, "no")
    after = annotate_import(result.run_dir, path)
    assert isinstance(after, PotemkinRunResult) and after.run_dir == result.run_dir
    assert after.keystones == (Keystone("scripted/answerer", CONCEPT, False),)
    assert after.grades_by["human"] == 1 and after.usage == result.usage
    assert after.table1 is not None and after.table1["overall"]["classify"].excluded == 1
    assert not any(r.keystone for r in read_records(after.records_path))


def test_score_reads_results_folders_and_files(tmp_path: Path) -> None:
    """potemkin_score of a result, of its folder and of its records file: the same tables; the
    plot is written where asked."""
    judge = ScriptedModel("scripted/judge", reply=lambda p: "ANSWER: Yes")
    result = potemkin_run(answerer(), concepts=CONCEPT, items_per_concept=1, judge=judge,
                      **where(tmp_path))
    assert result.scores is not None and result.plot == "keystone-expansion.png"
    scores = potemkin_score(result, plot=tmp_path / "k.png")
    assert isinstance(scores, PotemkinScores) and scores.plot == str(tmp_path / "k.png")
    assert (tmp_path / "k.png").read_bytes()[:4] == b"\x89PNG"
    assert scores.table1 == result.table1 and scores.counts == result.counts
    from_paths = potemkin_score([str(result.run_dir), result.records_path])
    assert from_paths.counts.records == 2 * result.counts.records and from_paths.plot is None
    every = potemkin_score(result.run_dir, above_chance_only=False, next_uses=1)
    assert every.keystone_expansion.models == ("scripted/answerer",)
    with pytest.raises(UserError, match="--next-uses"):
        potemkin_score(result, next_uses=0)


def test_incoherence_and_selfjudge_from_python(tmp_path: Path) -> None:
    """Both return their typed result, written as summary.json, with the CLI's run.json."""
    model = ScriptedModel(reply=zero_sum_maker)
    inc = potemkin_incoherence(model, concepts="game-theory/zero-sum", per_concept=1,
                               **where(tmp_path))
    assert isinstance(inc, PotemkinIncoherenceResult) and inc.overall.n == 2
    run, summary, _ = folder(inc.run_dir)
    assert summary == json.loads(json.dumps(inc.to_dict()))
    assert from_jsonable(PotemkinIncoherenceResult, summary) == inc
    assert run["command"] == "potemkin-incoherence"
    assert run["config"] == {"model": "scripted/m", "concepts": ["game-theory/zero-sum"],
                             "per_concept": 1, "temperature": 0.7, "max_tokens": None,
                             "base_url": None}

    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "B"}) + "\n")
    sj = potemkin_selfjudge(ScriptedModel(reply=relies_then_a), f"mcq:{path}", questions=1,
                            subquestions=1, **where(tmp_path))
    assert isinstance(sj, PotemkinSelfjudgeResult) and sj.skipped == {"original answer wrong": 1}
    assert sj.potemkin_rate is None and sj.judge_accuracy is None
    run, summary, _ = folder(sj.run_dir)
    assert summary == json.loads(json.dumps(sj.to_dict()))
    assert from_jsonable(PotemkinSelfjudgeResult, summary) == sj
    assert run["command"] == "potemkin-selfjudge"
    assert run["config"]["benchmark"] == f"mcq:{path}" and run["config"]["questions"] == 1


def test_async_twins_and_a_running_loop(tmp_path: Path) -> None:
    """The _async twins give the same results; the synchronous ones work inside a running
    loop (a notebook cell), on a worker thread."""
    async def cell() -> PotemkinRunResult:
        return potemkin_run(answerer(), concepts=CONCEPT, items_per_concept=1, **where(tmp_path))

    first = asyncio.run(cell())
    awaited = asyncio.run(potemkin_run_async(answerer(), concepts=CONCEPT, items_per_concept=1,
                                         **where(tmp_path)))
    assert awaited.keystones == first.keystones and awaited.run_dir != first.run_dir
    assert awaited.usage is not None and awaited.usage["scripted/answerer"].cache_hits == 4
    model = ScriptedModel(reply=lambda p: "ANSWER: No")
    inc = asyncio.run(potemkin_incoherence_async(model, concepts="psych/ikea-effect",
                                                 per_concept=1, **where(tmp_path)))
    assert inc.checker.n == 0 and inc.by_domain["Psychological biases"].n == 2
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "ABCDE"]}, "answerKey": "A"}) + "\n")
    sj = asyncio.run(potemkin_selfjudge_async(ScriptedModel(reply=relies_then_a),
                                              f"mcq:{path}", questions=1, subquestions=1,
                                              **where(tmp_path)))
    assert sj.answered_correctly == 1


@pytest.mark.parametrize(("call", "needle"), [
    (lambda m, w: potemkin_run(m, tasks="define,explain", **w), "tasks takes"),
    (lambda m, w: potemkin_run(m, tasks=(), **w), "tasks takes"),
    (lambda m, w: potemkin_run(m, items_per_concept=0, **w), "items_per_concept"),
    (lambda m, w: potemkin_run(m, max_tokens=0, **w), "max_tokens"),
    (lambda m, w: potemkin_run(m, source="benchmark", **w), "needs benchmark_dir"),
    (lambda m, w: potemkin_run(m, source="elsewhere", **w), "source must be one of"),
    (lambda m, w: potemkin_run(m, concepts="Quantum Haiku", **w), "Quantum Haiku"),
    (lambda m, w: potemkin_run(m, concepts="psych/ikea-effect", **w), "pass benchmark_dir"),
    (lambda m, w: potemkin_incoherence(m, per_concept=0, **w), "per_concept"),
    (lambda m, w: potemkin_incoherence(m, temperature=-1, **w), "temperature"),
    (lambda m, w: potemkin_incoherence(m, concepts="Quantum Haiku", **w), "Quantum Haiku"),
    (lambda m, w: potemkin_selfjudge(m, "arithmetic", **w), "mcq:PATH"),
    (lambda m, w: potemkin_selfjudge(m, "mcq:x", questions=0, **w), "questions"),
])
def test_bad_arguments_fail_before_any_call(tmp_path: Path, call, needle: str) -> None:
    """Bad input is a one-line UserError; no model is asked and no run folder made."""
    model = ScriptedModel()
    with pytest.raises(UserError, match=needle):
        call(model, where(tmp_path))
    assert model.calls == [] and not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_potemkin_on_the_embedded_model(tmp_path: Path, cli: Cli) -> None:
    """One exact concept, one item per task: whatever the model writes, every answer is
    recorded, the use answers wait for the definition, a person's "yes" lets them count, and
    the command line's run of the same items is configured alike."""
    result = potemkin_run(MODEL, concepts=CONCEPT, items_per_concept=1, max_tokens=48,
                      **where(tmp_path))
    assert result.failed_calls == 0 and result.usage is not None
    assert result.usage[MODEL].calls == 4
    assert result.keystones == (Keystone(MODEL, CONCEPT, None),)
    assert result.waiting_for_keystone == {"classify": 1, "generate": 1, "edit": 1}
    _, _, records = folder(result.run_dir)
    assert sorted(r["task"] for r in records) == ["classify", "define", "edit", "generate"]
    assert all(r["text"] is not None and r["error"] is None for r in records)

    path = annotate_export(result)
    label_all(path, "yes")
    after = annotate_import(result, path)
    assert after.keystones == (Keystone(MODEL, CONCEPT, True),)
    assert after.table1 is not None and after.counts is not None
    # an unreadable classification (none read, or cut off at the cap) is no record
    assert after.counts.records == 3 - after.table1["overall"]["classify"].unparsed
    for task in ("classify", "generate", "edit"):
        rate = after.table1["overall"][task]
        assert rate.excluded == 0 and rate.unparsed <= 1
        # one answer each: an unreadable classification is left out, an unreadable generated
        # or edited game counts as wrong and stays in n
        assert rate.n == (1 - rate.unparsed if task == "classify" else 1)

    done = cli(["potemkin", "run", "--concepts", CONCEPT, "--items-per-concept", "1",
                "--max-tokens", "48", "--runs-dir", str(tmp_path / "runs"), "--cache",
                str(tmp_path / "calls.sqlite"), "--no-progress", "--json"])
    assert done.returncode == 0, done.stderr
    from_cli = json.loads(done.stdout)
    assert from_cli["usage"][MODEL]["cache_hits"] == 4
    cli_run, _, _ = folder(Path(from_cli["run"]))
    api_run, _, _ = folder(result.run_dir)
    assert cli_run["config"] == api_run["config"] and cli_run["command"] == api_run["command"]
    assert from_cli["keystones"] == result.to_dict()["keystones"]
