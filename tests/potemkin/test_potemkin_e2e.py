"""The Potemkin commands end to end on the embedded model, from the command line in process:
structure and arithmetic of the outputs (not the model's quality), resuming through the cache,
and the published benchmark."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
from pathlib import Path

import pytest

from verstehen.cli.main import main
from verstehen.methods.potemkin.records import read_records
from verstehen.methods.potemkin.stats import SCALE
from verstehen.parse import is_idk, parse_yes_no

from conftest import SHARED_DATA, Cli, needs_shared

BENCHMARK = SHARED_DATA / "PotemkinBenchmark"
MMLU_DEV = SHARED_DATA / "mmlu" / "dev"
QUICK = ["--max-tokens", "48", "--no-progress", "--json"]


def records_of(run: str) -> list[dict]:
    """Every record of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


RUN = ["potemkin", "run", "--concepts", "game-theory/strict-dominance", "--items-per-concept",
       "2", "--judge", "local/smollm2-135m", *QUICK]


def in_process(args: list[str], folders: list[str]) -> dict:
    """`verstehen ARGS` (with --json) in this process, into the given runs folder and cache:
    the JSON it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*args, *folders])
    assert code == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def run_potemkin_options(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[str]]:
    """Two items per task of one exactly graded concept, the embedded model judging itself."""
    tmp = tmp_path_factory.mktemp("potemkin")
    folders = ["--runs-dir", str(tmp / "runs"), "--cache", str(tmp / "calls.sqlite")]
    return in_process(RUN, folders), folders


def check_tables(summary: dict, keystone: bool | None) -> None:
    """The records file and Table 1 follow from the recorded answers and the keystone."""
    answers = [r for r in records_of(summary["run"]) if r["kind"] == "answer"]
    path = Path(summary["run"], summary["records_file"])
    if keystone is None:  # nobody graded the definition: nothing to count yet
        assert path.read_text().splitlines() == ["model,domain,concept,task,keystone,correct"]
        assert sum(summary["waiting_for_keystone"].values()) == len(answers) - 1
        return
    records = read_records(path)
    # every use answer is a record but an unreadable classification (none read, or cut off)
    unread = sum(r["task"] == "classify" and r["correct"] is None for r in answers)
    assert len(records) == len(answers) - 1 - unread
    assert all(r.keystone is keystone for r in records)
    for task in ("classify", "generate", "edit"):
        graded = [r["correct"] for r in answers if r["task"] == task]
        rate = summary["table1"]["overall"][task]
        # an unreadable classification is left out; an unreadable generate or edit answer
        # counts as wrong
        counted = [c if c is not None else False for c in graded
                   if c is not None or task != "classify"]
        if not keystone:
            assert rate["rate"] is None and rate["excluded"] == len(graded)
            continue
        assert rate["n"] == len(counted)
        assert rate["unparsed"] == sum(c is None for c in graded)
        if counted:
            p = sum(counted) / len(counted)
            assert math.isclose(rate["rate"], SCALE[task] * (1 - p))
            assert math.isclose(rate["se"], SCALE[task] * math.sqrt(p * (1 - p) / len(counted)))
    assert Path(summary["run"], "keystone-expansion.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_run_records_follow_from_the_answers(run_potemkin_options: tuple[dict, list[str]]) -> None:
    """Every answer and the judge's verdict on the definition are recorded; the tables follow."""
    summary, _ = run_potemkin_options
    raw = records_of(summary["run"])
    answers = [r for r in raw if r["kind"] == "answer"]
    assert sorted(r["task"] for r in answers) == ["classify"] * 2 + ["define"] + \
        ["edit"] * 2 + ["generate"] * 2
    assert all(r["grading"] == ("judge" if r["task"] == "define" else "exact") for r in answers)
    judged = [r for r in raw if r["kind"] == "judge"]
    assert [j["id"] for j in judged] == ["game-theory/strict-dominance/define"]
    keystone = judged[0]["verdict"]
    assert summary["keystones"][0]["keystone"] == keystone
    check_tables(summary, keystone)


@pytest.mark.slow
def test_rerun_is_served_from_the_cache(run_potemkin_options: tuple[dict, list[str]]) -> None:
    """The same command again pays for nothing and gives the same records."""
    summary, folders = run_potemkin_options
    again = in_process(RUN, folders)
    usage = again["usage"]["local/smollm2-135m"]
    assert usage["calls"] == usage["cache_hits"] == 8
    first = Path(summary["run"], "potemkin-records.csv").read_text()
    assert Path(again["run"], "potemkin-records.csv").read_text() == first


@pytest.mark.slow
def test_annotate_round_trip_and_score(run_potemkin_options: tuple[dict, list[str]], tmp_path: Path,
                                       cli: Cli) -> None:
    """Export the definition, label it yes, import: the keystone passes and kappa is reported;
    `potemkin score` on the run folder prints the tables."""
    summary, _ = run_potemkin_options
    run = summary["run"]
    out = tmp_path / "label.csv"
    done = cli(["annotate", "export", run, "--out", str(out)])
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [r["task"] for r in rows] == ["define"]
    rows[0]["label"] = "yes"
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = cli(["annotate", "import", run, str(out), "--json"])
    assert done.returncode == 0, done.stderr
    after = json.loads(done.stdout)
    assert after["usage"] == summary["usage"]  # the asking run's facts survive the recompute
    assert after["keystones"][0]["keystone"] is True
    judged = summary["keystones"][0]["keystone"]
    assert after["agreement"].get("judge_vs_human", {"n": 0})["n"] == int(judged is not None)
    check_tables(after, True)
    shown = cli(["potemkin", "score", run])
    assert shown.returncode == 0, shown.stderr
    assert "paper Table 1" in shown.stdout and "paper Table 6" in shown.stdout


@pytest.mark.slow
@needs_shared("PotemkinBenchmark")
def test_benchmark_items_are_graded_by_their_labels(cli: Cli) -> None:
    """Published classify items of one concept, graded against the benchmark's labels."""
    done = cli(["potemkin", "run", "--benchmark-dir", str(BENCHMARK), "--concepts", "Haiku",
                "--tasks", "define,classify", "--items-per-concept", "3", *QUICK])
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    answers = [r for r in records_of(summary["run"]) if r["kind"] == "answer"]
    classify = [r for r in answers if r["task"] == "classify"]
    assert len(classify) == 3 and all(r["grading"] == "label" for r in classify)
    for r in classify:
        assert r["prompt"].startswith("Is the following example an instance of the concept Haiku")
        assert isinstance(r["label"], bool)
        said = parse_yes_no(r["text"])  # read again here, then compared with the label
        if r["outcome"] == "truncated":  # cut at the cap: whatever it held, unreadable
            assert r["correct"] is None and "48-token cap" in r["reason"]
        elif said is None:  # "I don't know" counts as wrong, anything else unreadable
            assert r["correct"] is (False if is_idk(r["text"]) else None)
        else:
            assert r["correct"] is (said == r["label"])
    # no judge and no labels: the definition waits, and so do the use answers
    assert summary["keystones"][0]["keystone"] is None
    assert summary["waiting_for_keystone"] == {"classify": 3}


@pytest.mark.slow
def test_incoherence_arithmetic(cli: Cli) -> None:
    """One exact and one judge concept, one example each way: 2 x mismatches over classified."""
    done = cli(["potemkin", "incoherence", "--per-concept", "1", "--concepts",
                "game-theory/zero-sum,psych/ikea-effect", *QUICK])
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    pairs = records_of(summary["run"])
    assert len(pairs) == 4 and {(p["concept"], p["want"]) for p in pairs} == {
        ("game-theory/zero-sum", True), ("game-theory/zero-sum", False),
        ("psych/ikea-effect", True), ("psych/ikea-effect", False)}
    classified = [p for p in pairs if p["mismatch"] is not None]
    overall = summary["overall"]
    assert overall["n"] == len(classified) and overall["unparsed"] == 4 - len(classified)
    if classified:
        rate = sum(p["mismatch"] for p in classified) / len(classified)
        assert math.isclose(overall["incoherence"], 2 * rate)
    assert all(p["is_instance"] is None for p in pairs if p["concept"] == "psych/ikea-effect")
    assert summary["checker"]["n"] == sum(p["is_instance"] is not None for p in pairs)


@pytest.mark.slow
@needs_shared("mmlu/dev")
def test_selfjudge_counts_add_up(cli: Cli) -> None:
    """Three MMLU questions: every one is skipped with a reason (no concept by the model's
    word, or answered wrong) or answered correctly and yields related questions."""
    done = cli(["potemkin", "selfjudge", "--benchmark", f"mcq:{MMLU_DEV}", "--questions", "3",
                "--subquestions", "2", *QUICK])
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["questions"] == 3 and summary["concept_step"] == "ask"
    no_concept = sum(v for k, v in summary["skipped"].items() if "concept" in k)
    assert no_concept == 3 - summary["relies_on_concept"]
    wrong = sum(v for k, v in summary["skipped"].items() if k.startswith("original answer"))
    assert wrong == summary["relies_on_concept"] - summary["answered_correctly"]
    concepts = [r for r in records_of(summary["run"]) if r["kind"] == "concept"]
    assert len(concepts) == 3 and all(r["prompt"].startswith("A concept is") for r in concepts)
    related = [r for r in records_of(summary["run"]) if r["kind"] == "related"]
    judged = [v for r in related for v in (r["judged_original"], r["judged_altered"])
              if v is not None]
    assert summary["judgments"] == len(judged)
    if judged:
        right = sum(r["judged_original"] is True for r in related) + \
            sum(r["judged_altered"] is False for r in related)
        assert math.isclose(summary["potemkin_rate"], 2 * (1 - right / len(judged)))
