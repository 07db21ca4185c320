"""Certification from Python: `verstehen.certify` and its `_async` twin.

The scripted-model tests check the typed result against the run folder it wrote; the slow
ones run the embedded model, as a notebook would (inside a running event loop too), and check
that a run made from Python is the run the CLI makes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_certify_procedure import calculator

import verstehen as vs
from verstehen.engine.session import RunSettings
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import (
    build_scopes,
    certify_scopes,
    criterion_of,
    make_plan,
)
from verstehen.results import from_jsonable
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli

MODEL = "local/smollm2-135m"


def folder(run_dir: Path) -> tuple[dict, dict, list[dict]]:
    """run.json, summary.json and the records of a run folder."""
    records = [json.loads(x) for x in (run_dir / "records.jsonl").read_text().splitlines()]
    return (json.loads((run_dir / "run.json").read_text()),
            json.loads((run_dir / "summary.json").read_text()), records)


def test_certify_returns_the_typed_result_its_summary_holds(tmp_path: Path) -> None:
    """A perfect scripted model understands; summary.json is the result's JSON form."""
    model = ScriptedModel("scripted/calc", reply=calculator)
    result = vs.certify(model, "arithmetic/small", questions=100, rid=0.05, rephrase=0,
                        runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    assert isinstance(result, CertifyResult)
    assert result.verdict is not None and result.verdict.decision is vs.Decision.UNDERSTANDS
    assert str(result.verdict).startswith("understands (mean score 1.000")
    assert result.run_dir.parent == tmp_path / "runs" and result.failed_calls == 0
    run, summary, records = folder(result.run_dir)
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert from_jsonable(CertifyResult, summary) == result
    assert summary["scopes"][0]["verdict"]["decision"] == "understands"
    assert run["command"] == "certify" and run["argv"] == []
    assert run["config"]["scopes"] == ["arithmetic/small"] and run["config"]["questions"] == 100
    assert len(records) == result.scopes[0].asked == 100 == len(model.calls)


def test_a_run_of_several_scopes_has_no_single_verdict(tmp_path: Path) -> None:
    """The audit's certification lens asks several scopes into one run: read .verdicts."""
    model = ScriptedModel("scripted/banana", reply=lambda prompt: "banana")
    plan = make_plan(criterion_of(0.7, 0.05, 0.05), sequential=True, max_questions=64,
                     rephrase=0)
    result = asyncio.run(certify_scopes(
        model, build_scopes(["arithmetic/small", "arithmetic"]), plan,
        settings=RunSettings(runs_dir=tmp_path, cache=tmp_path / "calls.sqlite")))
    assert list(result.verdicts) == ["arithmetic/small", "arithmetic"]
    for verdict in result.verdicts.values():
        assert verdict is not None and verdict.decision is vs.Decision.DOES_NOT_UNDERSTAND
        assert verdict.n == 16  # the first look already decides
    with pytest.raises(ValueError, match="2 scopes"):
        _ = result.verdict

def test_bad_arguments_fail_before_any_call(tmp_path: Path) -> None:
    """A bad scope or plan raises the one-line UserError; the model is never asked."""
    model = ScriptedModel()
    with pytest.raises(vs.UserError, match="unknown scope 'nope'"):
        vs.certify(model, "nope", runs_dir=tmp_path)
    with pytest.raises(vs.UserError, match="not both"):
        vs.certify(model, "arithmetic", questions=5, sequential=True, runs_dir=tmp_path)
    with pytest.raises(vs.UserError, match="RID"):
        vs.certify(model, "arithmetic", pg=0.01, rid=0.1, runs_dir=tmp_path)
    assert model.calls == [] and not any(tmp_path.iterdir())


@pytest.mark.slow
def test_certify_the_embedded_model_from_python_and_from_a_notebook(tmp_path: Path,
                                                                    cli: Cli) -> None:
    """The README's one-liner; again inside a running loop (a notebook), from the cache; the
    CLI's run of the same question writes the same run configuration."""
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    result = vs.certify(MODEL, "arithmetic/small", questions=8, **where)
    assert result.verdict is not None and result.verdict.n == 8
    assert result.verdict.decision in set(vs.Decision)
    assert result.usage[MODEL].calls == 16  # 8 questions and 8 rephrased

    async def notebook_cell() -> CertifyResult:
        return vs.certify(MODEL, "arithmetic/small", questions=8, **where)

    again = asyncio.run(notebook_cell())
    assert again.usage[MODEL].cache_hits == again.usage[MODEL].calls == 16
    assert again.scopes == result.scopes and again.run_dir != result.run_dir
    awaited = asyncio.run(vs.certify_async(MODEL, "arithmetic/small", questions=8, **where))
    assert awaited.scopes == result.scopes

    done = cli(["certify", "--scope", "arithmetic/small", "--questions", "8", "--runs-dir",
                str(where["runs_dir"]), "--cache", str(where["cache"]), "--json",
                "--no-progress"])
    assert done.returncode == 0, done.stderr
    from_cli = json.loads(done.stdout)
    cli_run, _, _ = folder(Path(from_cli["run"]))
    api_run, _, _ = folder(result.run_dir)
    assert cli_run["config"] == api_run["config"] and cli_run["command"] == api_run["command"]
    assert from_cli["scopes"] == result.to_dict()["scopes"]
