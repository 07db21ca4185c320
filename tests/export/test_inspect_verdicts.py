"""Inspect logs a person reads (issue 44): a certify log leads with its verdict, the score
Inspect's own resolver (`headline_metric`, what `inspect view` lists) reads, with the decision
in words as its tag and on each sample; one log per (model, scope) verdict, with exactly the n
samples the verdict rests on, its rephrasings in a log apart; the run folder's tokens and time
as the log's stats; every question asked in exactly one log of its folder.

Before: the first metric was `n` (a certify log listed 20.0 as its score), the decision lived
only in the scores' metadata, the 2 rephrasings were counted among the samples (22 for a verdict
on 20), `stats.model_usage` was empty and `completed_at` was `started_at` (0 tokens, 0.0 s).
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from every_method import each_kind
from made_runs import QUESTIONS, REPHRASED, made_runs, records, summary
from test_inspect_export import export

import verstehen as vs
from verstehen.errors import CallFailed
from verstehen.methods.certification.example import calculator
from verstehen.testing.scripted import ScriptedModel

inspect_log = pytest.importorskip("inspect_ai.log")
read_eval_log, headline_metric = inspect_log.read_eval_log, inspect_log.headline_metric

WORDS = {"understands": "understands", "does_not_understand": "does not understand",
         "inconclusive": "inconclusive", None: "no verdict"}
NUMBER = {"understands": 1, "does_not_understand": -1, "inconclusive": 0, None: 0}


def logs_of(run: Path, out: Path) -> list:
    """The EvalLogs `verstehen export --inspect` writes of a run folder."""
    return [read_eval_log(str(path)) for path in export(str(run), "--inspect", "--out",
                                                         str(out))]


def verdict_logs(logs: list) -> list:
    return [log for log in logs if log.eval.task == "verstehen/certify"]


def lines_of(run: Path) -> list[dict]:
    """summary.json's verdict lines: certify's scopes, an audit's targets."""
    data = summary(run)
    return data.get("scopes") or data["targets"]


def check_verdict_log(log, line: dict, answers: list[dict]) -> None:
    """A verdict log as its summary line and its answer records say it should be."""
    verdict, decision = line["verdict"], (line["verdict"] or {}).get("decision")
    scope = line["scope"]
    (score,) = log.results.scores
    led = headline_metric(log)  # Inspect's own choice of the log's score (the list's SCORE)
    assert (led.score.name, led.name, led.metric.value) == (score.name, "verdict",
                                                            NUMBER[decision])
    assert log.results.headline.metric == "verdict" == next(iter(score.metrics))
    bounds = (["score_upper", "pg", "ridiculous_lower", "rid"]
              if decision == "does_not_understand" else
              ["score_lower", "pg", "ridiculous_upper", "rid"])
    if verdict is not None:
        assert list(score.metrics)[:5] == ["verdict", *bounds]
        assert all(score.metrics[k].value == verdict[k] for k in bounds)
        assert score.metrics["n"].value == verdict["n"] == len(log.samples)
    assert log.tags == [f"{scope}: {WORDS[decision]}"]
    assert WORDS[decision] in log.eval.metadata["about"]
    assert log.eval.dataset.name == scope
    assert len(log.samples) == len(answers) == log.results.total_samples
    assert log.eval.dataset.samples == len(answers)
    assert sorted(s.input for s in log.samples) == sorted(r["prompt"] for r in answers)
    assert {s.metadata["verdict"] for s in log.samples} == {WORDS[decision]}
    assert {s.metadata["kind"] for s in log.samples} == {"answer"}


def test_a_certify_log_leads_with_its_verdict_on_its_n_answers(tmp_path, tmp_path_factory):
    run = made_runs(tmp_path_factory)["certify"]
    logs = logs_of(run, tmp_path)
    assert [log.eval.task for log in logs] == ["verstehen/certify", "verstehen/certify-rephrase"]
    (line,) = lines_of(run)
    answers = [r for r in records(run) if r["kind"] == "answer"]
    assert line["verdict"]["decision"] == "understands" and len(answers) == QUESTIONS
    check_verdict_log(logs[0], line, answers)


def test_rephrasings_are_a_log_apart_from_the_verdict(tmp_path, tmp_path_factory):
    run = made_runs(tmp_path_factory)["certify"]
    rephrase = logs_of(run, tmp_path)[1]
    again = [r for r in records(run) if r["kind"] == "rephrase"]
    assert len(rephrase.samples) == len(again) == REPHRASED == rephrase.results.total_samples
    assert {s.metadata["kind"] for s in rephrase.samples} == {"rephrase"}
    assert "verdict" not in {k for s in rephrase.samples for k in s.metadata}
    (score,) = rephrase.results.scores
    check = lines_of(run)[0]["rephrase"]
    assert headline_metric(rephrase).name == "disagreement_rate"
    assert score.metrics["disagreement_rate"].value == check["rate"]
    assert score.metrics["n"].value == check["n"]
    assert "verdict" not in score.metrics
    assert rephrase.tags == ["arithmetic/small: rephrase check"]


@each_kind(lambda kind: kind.rows is not None)
def test_each_log_carries_its_run_folders_tokens_and_time(kind, tmp_path, tmp_path_factory):
    logs = logs_of(made_runs(tmp_path_factory)[kind.kind], tmp_path)
    assert logs
    for log in logs:
        folder = Path(log.eval.metadata["verstehen_run"])  # an audit's: its lens folder's
        done = summary(folder)
        assert done["usage"] and set(log.stats.model_usage) == set(done["usage"])
        for name, counts in done["usage"].items():
            mine = log.stats.model_usage[name]
            assert mine.total_tokens == counts["prompt_tokens"] + counts["completion_tokens"]
            assert mine.output_tokens == counts["completion_tokens"]
            assert mine.input_tokens == counts["new_prompt_tokens"]
            assert mine.input_tokens + (mine.input_tokens_cache_read or 0) == \
                counts["prompt_tokens"]
        started = datetime.datetime.fromisoformat(log.stats.started_at)
        completed = datetime.datetime.fromisoformat(log.stats.completed_at)
        created = json.loads((folder / "run.json").read_text())["created"]
        assert started == datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%S%z")
        assert (completed - started).total_seconds() == pytest.approx(done["seconds"])
        assert log.eval.metadata["logs_of_run"] == sum(
            other.eval.metadata["verstehen_run"] == str(folder) for other in logs)


def test_an_audits_logs_lead_with_each_targets_verdict(tmp_path, tmp_path_factory):
    audit = made_runs(tmp_path_factory)["audit"]
    logs = logs_of(audit, tmp_path)
    lines = lines_of(audit)
    assert len(verdict_logs(logs)) == len(lines) == 2
    assert {log.eval.task for log in logs} - {"verstehen/certify"} == {
        "verstehen/potemkin-run", "verstehen/potemkin-incoherence"}
    for log in verdict_logs(logs):
        (line,) = [t for t in lines if t["scope"] == log.eval.dataset.name]
        assert line["verdict"]["decision"] == "does_not_understand"  # the oracle's edit items
        lens = Path(log.eval.metadata["verstehen_run"])
        answers = [r for r in records(lens) if r["kind"] == "answer"
                   and r["scope"] == line["scope"]]
        check_verdict_log(log, line, answers)
        assert log.eval.metadata["outer_run"] == str(audit)


def test_one_log_per_verdict_of_several_models_and_scopes(tmp_path):
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    run = vs.certify([ScriptedModel("scripted/calc", reply=calculator),
                      ScriptedModel("scripted/idk", reply=lambda p: "I don't know")],
                     ["arithmetic/small", "arithmetic"], questions=16, rephrase=2, pg=0.6,
                     rid=0.3, **where).run_dir
    logs = logs_of(run, tmp_path / "logs")
    lines = lines_of(run)
    assert len(verdict_logs(logs)) == len(lines) == 4 and len(logs) == 8
    assert len({log.location for log in logs}) == 8
    for log in verdict_logs(logs):
        model, scope = log.eval.model, log.eval.dataset.name
        (line,) = [t for t in lines if t["model"] == model and t["scope"] == scope]
        assert line["verdict"]["decision"] == ("understands" if model == "scripted/calc"
                                               else "does_not_understand")
        answers = [r for r in records(run) if r["kind"] == "answer" and r["model"] == model
                   and r["scope"] == scope]
        check_verdict_log(log, line, answers)
        assert set(log.stats.model_usage) == {model}


def test_an_inconclusive_verdict_and_no_verdict_lead_with_zero(tmp_path):
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    with pytest.warns(UserWarning, match="cannot certify"):
        few = vs.certify(ScriptedModel("scripted/calc", reply=calculator), "arithmetic/small",
                         questions=4, rephrase=0, pg=0.6, rid=0.3, **where).run_dir

    def refused(prompt: str, attempt: int) -> Exception | None:
        return CallFailed("refused") if "7" in prompt else None

    failed = vs.certify(ScriptedModel("scripted/flaky", script=refused, reply=calculator),
                        "arithmetic/small", questions=20, rephrase=0, pg=0.6, rid=0.3,
                        **where).run_dir
    for run, decision in ((few, "inconclusive"), (failed, None)):
        (log,) = logs_of(run, tmp_path / "logs")
        (line,) = lines_of(run)
        assert (line["verdict"] or {}).get("decision") == decision
        check_verdict_log(log, line, [r for r in records(run) if r["kind"] == "answer"])
    assert any(s.output.error for s in log.samples)  # the failed calls are samples too
