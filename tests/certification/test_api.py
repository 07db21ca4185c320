"""Certification from Python: `verstehen.certify` and its `_async` twin.

The scripted-model tests check the typed result against the run folder it wrote; the slow
ones run the embedded model, as a notebook would (inside a running event loop too), and check
that a run made from Python is the run the CLI makes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import by_hand
import numpy as np
import pytest

import verstehen as vs
from verstehen.engine.session import RunSettings
from verstehen.methods.certification.betting import betting_verdict
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.plan import samples_needed
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import (
    build_scopes,
    certify_scopes,
    criterion_of,
    make_plan,
)
from verstehen.methods.certification.sequential import (
    certify_at_look,
    first_decisive_look,
    perfect_reach,
    schedule_of,
    unreachable,
)
from verstehen.methods.certification.verdict import Criterion, Decision
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
    plan = make_plan(criterion_of(0.7, 0.05, 0.05), sequential=True, max_questions=128,
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
    # 8 questions can certify a perfect model at PG 0.6, RID 0.4: L(1, 8, 0.05) = 0.688,
    # U(0, 8, 0.05) = 0.312 (the default RID 0.001 would need 2,995, and is refused)
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite", "pg": 0.6,
             "rid": 0.4}
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
                "--no-progress", "--pg", "0.6", "--rid", "0.4"])
    assert done.returncode == 0, done.stderr
    from_cli = json.loads(done.stdout)
    cli_run, _, _ = folder(Path(from_cli["run"]))
    api_run, _, _ = folder(result.run_dir)
    assert cli_run["config"] == api_run["config"] and cli_run["command"] == api_run["command"]
    assert from_cli["scopes"] == result.to_dict()["scopes"]


def test_a_budget_that_cannot_certify_a_perfect_model_warns_and_still_decides(
        tmp_path: Path) -> None:
    """PG 0.7, RID 0.05: a perfect model's U(0, n, 0.05) = 1 - 0.05^(1/n) <= 0.05 first holds
    at n = ln 0.05 / ln 0.95 = 58.4, so 58 questions warn (and cannot certify a perfect
    calculator) while 59 certify it; the 58 can still find a model that does not understand."""
    calc = ScriptedModel("scripted/calc", reply=calculator)
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite", "rephrase": 0,
             "pg": 0.7}
    with pytest.warns(UserWarning, match="58 questions cannot certify even a perfect model"):
        result = vs.certify(calc, "arithmetic/small", questions=58, rid=0.05, **where)
    assert result.verdict is not None and result.verdict.decision is vs.Decision.INCONCLUSIVE
    assert len(calc.calls) == 58
    result = vs.certify(calc, "arithmetic/small", questions=59, rid=0.05, **where)
    assert result.verdict is not None and result.verdict.decision is vs.Decision.UNDERSTANDS
    # a model with no answer at all: 58 ridiculous answers, L(1, 58, 0.025) = 0.025^(1/58)
    # = 0.938 > RID 0.05, so it does not understand, whatever PG needs
    mute = ScriptedModel("scripted/mute", reply=lambda prompt: "no idea, sorry")
    with pytest.warns(UserWarning, match="can still find that the model does not understand"):
        result = vs.certify(mute, "arithmetic/small", questions=58, rid=0.05, **where)
    assert result.verdict is not None
    assert result.verdict.decision is vs.Decision.DOES_NOT_UNDERSTAND
    # sequential by the doubling test, looks from 16 at δ_j = 6·0.05/(π² j²): U(0, 32, δ_2)
    # = 0.14 and U(0, 64, δ_3) = 0.085 miss 0.05; a budget in (64, 128] is look 4, and
    # U(0, n, δ_4) <= 0.05 from n = ln(1/δ_4) / -ln(0.95) = 122.2; at 64, U(0, 64, δ_3) =
    # 0.085 asks RID 0.09 (worded as Python keywords: the warning comes from Python)
    with pytest.warns(UserWarning, match=r"looks from 16 up to 64 cannot .* use max_questions="
                                         r"123 or more, or rid=0\.09"):
        vs.certify(calc, "arithmetic/small", sequential=True, max_questions=64, rid=0.05,
                   sequential_test="doubling", **where)
    # by the betting test: the bet on "no answer ridiculous" gains a unit stake 1/0.95 - 1 a
    # right answer; the wealth reaches 20 only after `fewest` of them (by_hand), so 64 warn
    # and name that many, and the smallest RID on the grid whose bets get there within 64
    fewest = by_hand.perfect_needs(0.7, 0.05, 0.05)
    looser = next(r / 100 for r in range(6, 100)
                  if by_hand.constant_wealth(1 / (1 - r / 100) - 1, 64) >= 20)
    assert fewest > 64
    with pytest.warns(UserWarning, match=rf"looks from 16 up to 64 cannot .* use max_questions="
                                         rf"{fewest} or more, or rid={looser:g}"):
        vs.certify(calc, "arithmetic/small", sequential=True, max_questions=64, rid=0.05,
                   **where)


def test_default_budgets_reach_understands_for_any_criterion() -> None:
    """Without --questions: 100, or the fewest that certify a perfect model when that is more
    (RID 0.001: 1 - 0.05^(1/n) <= 0.001 from n = 2,995); sequential: looks up to 1024, or the
    look that certifies one: the doubling test's checkpoint (look 10, 8,192: ln(π²·100/0.3)
    / 8192 = 0.00099), the betting test's first look (from 16) at or after the answers its
    bets need (by_hand)."""
    strict, easy = criterion_of(0.7, 0.001, 0.05), criterion_of(0.7, 0.05, 0.05)
    assert make_plan(strict).questions == 2995
    assert make_plan(strict, sequential=True, sequential_test="doubling").questions == 8192
    needs = by_hand.perfect_needs(0.7, 0.001, 0.05)
    look = next(n for n in by_hand.looks(16, 2**20) if n >= needs)
    assert 2995 < needs <= look < 8192
    assert make_plan(strict, sequential=True).questions == look
    assert make_plan(easy).questions == 100 and make_plan(easy, sequential=True).questions == 1024
    with pytest.raises(vs.UserError, match="max_questions is the budget of a sequential"):
        make_plan(easy, max_questions=500)


@pytest.mark.not_fast  # every look of a sequential test up to its budget: seconds a case
@pytest.mark.parametrize(("pg", "rid"), [(0.7, 0.05), (0.8, 0.2), (0.9, 0.01), (0.95, 0.3)])
@pytest.mark.parametrize("test", ["doubling", "betting"])
def test_perfect_reach_agrees_with_the_verdicts_on_perfect_scores(pg: float, rid: float,
                                                                  test: str) -> None:
    """perfect_reach says a budget certifies a perfect model exactly when Procedure 4.1 (fixed)
    or the sequential test does on that many perfect scores, at the look it names."""
    c = Criterion(pg, rid, 0.05)
    fixed = samples_needed(c, 1.0, 0.0)
    assert fixed is not None
    for n in (fixed - 1, fixed):
        said = perfect_reach(c, n, sequential=False) is not None
        assert said is (certify(np.ones(n), pg, rid, 0.05).decision is Decision.UNDERSTANDS)
    for budget in (16, 40, 64, 100, 256, 1000):
        schedule = schedule_of(test, 8, budget)
        decisions = [(certify_at_look(np.ones(budget), c, look, schedule) if test == "doubling"
                      else betting_verdict(np.ones(budget), c, look, schedule)).decision
                     for look in range(1, len(schedule) + 1)]
        reach = perfect_reach(c, budget, sequential=True, first_look=8, test=test)
        assert reach == first_decisive_look(c, 8, budget, 1.0, test=test)
        if reach is None:  # no look certifies a perfect model
            assert Decision.UNDERSTANDS not in decisions
        else:  # certified at the look reach names, and at no earlier look
            look = schedule.index(reach)
            assert decisions[look] is Decision.UNDERSTANDS
            assert all(d is Decision.INCONCLUSIVE for d in decisions[:look])
        assert (unreachable(c, budget, sequential=True, first_look=8, test=test) is None) is \
            (reach is not None)


def test_the_api_takes_timeout_and_threads(stub_server, tmp_path: Path) -> None:
    """`timeout=` bounds a slow server's reply and `threads=` reaches the session, as the CLI's
    --timeout and --threads do (issue 30: the API had neither)."""
    slow = stub_server(delay=3.0)
    result = vs.certify("openai/stub", "arithmetic/small", questions=2, rephrase=0, pg=0.5,
                        rid=0.2, base_url=slow.url, timeout=0.5, max_attempts=1,
                        runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    assert result.failed_calls == 2  # each reply took 3 s, over the 0.5 s asked
    with pytest.raises(vs.UserError, match="threads must be at least 1"):
        vs.certify("openai/stub", "arithmetic/small", questions=2, base_url=slow.url, threads=0,
                   runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
